import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { writeSealedRecording } from './recording-fixture.testkit.js';
import { flipByteInChunk, recordMinute } from './recording-integrity.testkit.js';
import { DirRecordingStore, type RecordingIndex } from './recording-store.js';

let app: TestApp;
const sid = '5f2c1d3e-aaaa-4bbb-8ccc-123456789abc';
const cast =
  '{"version":2,"width":80,"height":24,"timestamp":1,"env":{},"title":"t"}\n[0.1,"o","hi"]\n';
const url = (id = sid) => `/v1/webapi/sites/-current-/sessions/${id}/recording`;

beforeAll(async () => {
  app = await createTestApp();
  await writeSealedRecording(app, sid, cast, { participants: ['alice'], durationMs: 100 });
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

  it('sends the plain asciicast when asked for format=cast', async () => {
    const headers = await app.signIn(['auditor'], 'audrey');
    const res = await app.server.inject({ url: `${url()}?format=cast`, headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-asciicast');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${sid}.cast"`);
    expect(res.body).toBe(cast);
    const bad = await app.server.inject({ url: `${url()}?format=mp4`, headers });
    expect(bad.statusCode).toBe(400);
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

describe('the player calls: recording/info and recording/events', () => {
  const info = (id = sid) => `${url(id)}/info`;
  const events = (query: string, id = sid) => `${url(id)}/events?${query}`;

  it('answer 401 without a session and 403 without recordedSessions read', async () => {
    for (const path of [info(), events('at=0')]) {
      expect((await app.server.inject({ url: path })).statusCode).toBe(401);
      const headers = await app.signIn(['editor'], 'eddie');
      expect((await app.server.inject({ url: path, headers })).statusCode).toBe(403);
    }
  });

  it('describe the recording and audit the opening, once per player', async () => {
    const headers = await app.signIn(['auditor'], 'aubrey');
    const res = await app.server.inject({ url: info(), headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      sid,
      durationMs: 100,
      incomplete: false,
      cols: 80,
      rows: 24,
      title: 't',
      castBytes: cast.length,
      keyframeTimes: [],
      // An index without marks (written before they existed) has none to show.
      marks: [],
    });
    await app.server.inject({ url: events('at=0'), headers });
    await app.server.inject({ url: events('offset=0'), headers });
    const mine = (await accessEvents()).filter((e) => e.user === 'aubrey');
    expect(mine).toEqual([expect.objectContaining({ sid, format: 'player' })]);
  });

  it('return chunks of events by time or by offset', async () => {
    const headers = await app.signIn(['auditor'], 'audrey');
    const byTime = await app.server.inject({ url: events('at=0.05'), headers });
    expect(byTime.json()).toEqual({ events: [[0.1, 'o', 'hi']], next: null });
    const start = await app.server.inject({ url: events('offset=0&bytes=1'), headers });
    expect(start.json()).toEqual({ events: [[0.1, 'o', 'hi']], next: null });
    const past = await app.server.inject({ url: events(`offset=${cast.length}`), headers });
    expect(past.json()).toEqual({ events: [], next: null });
  });

  it('refuse a query with neither or both of at and offset, or a bad number', async () => {
    const headers = await app.signIn(['auditor'], 'audrey');
    for (const query of ['', 'at=1&offset=0', 'offset=-1', 'at=soon', 'bytes=0&at=1']) {
      const res = await app.server.inject({ url: events(query), headers });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message).toBeTruthy();
    }
  });

  it('hide recordings the user may not read', async () => {
    const bob = await app.signIn(['access'], 'bob');
    expect((await app.server.inject({ url: info(), headers: bob })).statusCode).toBe(404);
    expect((await app.server.inject({ url: events('at=0'), headers: bob })).statusCode).toBe(404);
    const alice = await app.signIn(['access'], 'alice');
    expect((await app.server.inject({ url: info(), headers: alice })).statusCode).toBe(200);
  });

  it('serve a damaged recording up to the damage and report it, instead of failing', async () => {
    const headers = await app.signIn(['auditor'], 'audrey');
    const store = new DirRecordingStore(app.config.recordings.dir);
    const damagedSid = '9a0c2a6c-1111-4222-8333-944455556666';
    await recordMinute(store, damagedSid);
    const record = await flipByteInChunk(store, damagedSid, 5);
    const res = await app.server.inject({
      url: events('offset=0&bytes=1048576', damagedSid),
      headers,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.next).toBeNull();
    expect(body.damaged).toEqual({ t: expect.any(Number), chunk: 5, message: expect.any(String) });
    expect(body.events.length).toBeGreaterThan(0);
    expect(body.events.at(-1)[0]).toBeLessThan(record.t);
    expect(body.damaged.t).toBe(body.events.at(-1)[0]);
    expect(JSON.stringify(body)).not.toMatch(/\/tmp|stack/);

    // A recording sealed before chunk hashes, whose cast stops decompressing at some point:
    // what decompresses before it is served (zlib gives up on the whole piece it was reading).
    const oldSid = '9a0c2a6c-2222-4222-8333-944455556666';
    const lines = Array.from({ length: 40 }, (_, i) => [
      i + 1,
      'o',
      randomBytes(6000).toString('base64'),
    ]);
    const text = `${cast}${lines.map((line) => `${JSON.stringify(line)}\n`).join('')}`;
    await writeFile(
      store.file(oldSid, 'cast.gz'),
      Buffer.concat([gzipSync(text), Buffer.from('garbage that is no gzip')]),
    );
    const oldIndex: RecordingIndex = {
      version: 1,
      sid: oldSid,
      sealed: true,
      incomplete: false,
      durationMs: 41_000,
      participants: ['alice'],
      castBytes: text.length + 1000,
      keyframes: [],
    };
    await writeFile(store.file(oldSid, 'index.json'), JSON.stringify(oldIndex));
    const old = await app.server.inject({ url: events('offset=0&bytes=1048576', oldSid), headers });
    expect(old.statusCode).toBe(200);
    const oldBody = old.json();
    expect(oldBody.events.length).toBeGreaterThan(0);
    expect(oldBody.events).toEqual([[0.1, 'o', 'hi'], ...lines].slice(0, oldBody.events.length));
    expect(oldBody.next).toBeNull();
    expect(oldBody.damaged).toEqual({
      t: oldBody.events.at(-1)[0],
      message: expect.any(String),
    });
  });
});
