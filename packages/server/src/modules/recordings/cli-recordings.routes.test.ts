import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedHeaders } from '../../testing/signed-request.testkit.js';
import { writeSealedRecording } from './recording-fixture.testkit.js';

// `postern recordings ls` and `postern play` call these, signed with the user's certificate.
let app: TestApp;
const sid = '7a1c2d3e-aaaa-4bbb-8ccc-123456789abc';
const cast =
  '{"version":2,"width":80,"height":24,"timestamp":1,"env":{},"title":"t"}\n[0.1,"o","hi"]\n';
const paths = {
  list: '/v1/webapi/recordings',
  info: `/v1/webapi/recordings/${sid}/info`,
  events: `/v1/webapi/recordings/${sid}/events?offset=0`,
};

beforeAll(async () => {
  app = await createTestApp();
  for (const [name, roles] of [
    ['audrey', ['auditor']],
    ['eddie', ['editor']],
    ['alice', ['access']],
    ['bob', ['access']],
  ] as const) {
    await app.services.users.create({ name, roles: [...roles] }, 'test');
  }
  await writeSealedRecording(app, sid, cast, { participants: ['alice'], durationMs: 100 });
});
afterAll(() => app?.close());

const get = (path: string, user?: string) =>
  app.server.inject({ url: path, headers: user ? signedHeaders(app, user, { path }) : {} });

const opened = async () =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 100 })
  ).events.filter((e) => e.code === 'T2012I');

describe('the signed recordings calls', () => {
  it('answer 401 unsigned and 403 without recordedSessions list or read', async () => {
    for (const path of Object.values(paths)) {
      expect((await get(path)).statusCode, path).toBe(401);
      expect((await get(path, 'eddie')).statusCode, path).toBe(403);
    }
  });

  it("list the sessions' ends the user may see", async () => {
    const audrey = await get(paths.list, 'audrey');
    expect(audrey.statusCode, audrey.body).toBe(200);
    expect(audrey.json().events.map((e: { sid: string }) => e.sid)).toEqual([sid]);
    // bob was not in it: his list is empty, and the recording is not found for him.
    expect((await get(paths.list, 'bob')).json().events).toEqual([]);
    expect((await get(paths.info, 'bob')).statusCode).toBe(404);
    expect((await get(paths.list, 'alice')).json().events).toHaveLength(1);
  });

  it('give the info (audited as an opening) and the events', async () => {
    const info = await get(paths.info, 'alice');
    expect(info.statusCode, info.body).toBe(200);
    expect(info.json()).toMatchObject({ sid, cols: 80, rows: 24, durationMs: 100 });
    expect(await opened()).toEqual([
      expect.objectContaining({ user: 'alice', sid, format: 'player' }),
    ]);
    const events = await get(paths.events, 'alice');
    expect(events.json()).toEqual({ events: [[0.1, 'o', 'hi']], next: null });
    expect((await get(`/v1/webapi/recordings/${sid}/events`, 'alice')).statusCode).toBe(400);
    expect((await get('/v1/webapi/recordings/..%2Fx/info', 'audrey')).statusCode).toBe(404);
  });
});
