import { mkdir, writeFile } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { DirRecordingStore, type RecordingIndex } from './recording-store.js';

let app: TestApp;
const sid = '5f2c1d3e-aaaa-4bbb-8ccc-123456789abc';
const cast =
  '{"version":2,"width":80,"height":24,"timestamp":1,"env":{},"title":"t"}\n[0.1,"o","hi"]\n';
const url = (id = sid) => `/v1/webapi/sites/-current-/sessions/${id}/recording`;

beforeAll(async () => {
  app = await createTestApp();
  const store = new DirRecordingStore(app.config.recordings.dir);
  await mkdir(store.dir, { recursive: true });
  await writeFile(store.file(sid, 'cast.gz'), gzipSync(cast));
  const index: RecordingIndex = {
    version: 1,
    sid,
    sealed: true,
    incomplete: false,
    durationMs: 100,
    participants: ['alice'],
    castBytes: cast.length,
    keyframes: [],
  };
  await writeFile(store.file(sid, 'index.json'), JSON.stringify(index));
});
afterAll(() => app?.close());

const accessEvents = async () =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 100 })
  ).events.filter((e) => e.code === 'T2012I');

describe('GET sessions/:sid/recording', () => {
  it('answers 401 without a session and 403 without recordedSessions read', async () => {
    expect((await app.server.inject({ url: url() })).statusCode).toBe(401);
    const headers = await app.signIn(['editor'], 'eddie');
    expect((await app.server.inject({ url: url(), headers })).statusCode).toBe(403);
  });

  it('sends the cast to an auditor and audits the access', async () => {
    const headers = await app.signIn(['auditor'], 'audrey');
    const res = await app.server.inject({ url: url(), headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${sid}.cast.gz"`);
    expect(gunzipSync(res.rawPayload).toString()).toBe(cast);
    expect(await accessEvents()).toEqual([
      expect.objectContaining({ event: 'session.recording.access', user: 'audrey', sid }),
    ]);
  });

  it('hides a recording from an access user who was not in it, and unknown ids', async () => {
    const bob = await app.signIn(['access'], 'bob');
    expect((await app.server.inject({ url: url(), headers: bob })).statusCode).toBe(404);
    const alice = await app.signIn(['access'], 'alice');
    expect((await app.server.inject({ url: url(), headers: alice })).statusCode).toBe(200);
    const auditor = await app.signIn(['auditor'], 'audra');
    const unknown = await app.server.inject({ url: url('no-such-session'), headers: auditor });
    expect(unknown.statusCode).toBe(404);
    const traversal = await app.server.inject({ url: url('..%2Fx'), headers: auditor });
    expect(traversal.statusCode).toBe(404);
  });
});
