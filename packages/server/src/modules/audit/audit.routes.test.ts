import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditSearchResponseSchema } from '@postern/contracts';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

let app: TestApp;
let auditor: Record<string, string>;
const base = Date.parse('2026-01-10T00:00:00Z');
const at = (minutes: number) => new Date(base + minutes * 60_000);

beforeAll(async () => {
  app = await createTestApp();
  auditor = await app.signIn(['auditor'], 'audrey');
  for (let i = 0; i < 30; i++) {
    await app.audit.emit({
      event: 'session.start',
      code: 'T2000I',
      user: 'alice',
      time: at(i),
      sid: `s${i}`,
    });
    await app.audit.emit({
      event: 'session.end',
      code: 'T2004I',
      user: 'alice',
      time: at(i + 0.5),
      sid: `s${i}`,
    });
  }
  await app.audit.emit({ event: 'user.login', code: 'T1000W', user: 'mallory', time: at(40) });
});
afterAll(() => app.close());

const search = async (query: string, path = 'events/search', cluster = 'test-cluster') => {
  const res = await app.server.inject({
    url: `/v1/webapi/sites/${cluster}/${path}?${query}`,
    headers: auditor,
  });
  return res;
};
const range = `from=${at(0).toISOString()}&to=${at(60).toISOString()}`;

describe('GET events/search', () => {
  it('returns events in [from, to), newest first, as {events, startKey}', async () => {
    const res = await search(range);
    expect(res.statusCode).toBe(200);
    const body = auditSearchResponseSchema.parse(res.json());
    expect(body.events).toHaveLength(61);
    expect(body.startKey).toBe('');
    expect(body.events[0]).toMatchObject({
      event: 'user.login',
      code: 'T1000W',
      user: 'mallory',
      cluster_name: 'test-cluster',
    });
    expect(body.events.every((event) => typeof event.uid === 'string')).toBe(true);
  });

  it('excludes an event exactly at `to` and accepts start/end as aliases', async () => {
    const res = await search(`start=${at(0).toISOString()}&end=${at(40).toISOString()}`);
    const body = auditSearchResponseSchema.parse(res.json());
    expect(body.events).toHaveLength(60);
    expect(body.events.some((event) => event.user === 'mallory')).toBe(false);
  });

  it('filters by event type with include', async () => {
    const body = auditSearchResponseSchema.parse(
      (await search(`${range}&include=user.login,session.end`)).json(),
    );
    expect(new Set(body.events.map((event) => event.event))).toEqual(
      new Set(['user.login', 'session.end']),
    );
    expect(body.events).toHaveLength(31);
  });

  it('pages with limit and an opaque startKey, without gaps or repeats', async () => {
    const seen: string[] = [];
    let startKey = '';
    let pages = 0;
    do {
      const body = auditSearchResponseSchema.parse(
        (
          await search(
            `${range}&limit=7${startKey ? `&startKey=${encodeURIComponent(startKey)}` : ''}`,
          )
        ).json(),
      );
      seen.push(...body.events.map((event) => String(event.uid)));
      startKey = body.startKey;
      pages++;
    } while (startKey && pages < 20);
    expect(pages).toBe(9);
    expect(new Set(seen).size).toBe(61);
  });

  it('works with the -current- alias and 404s an unknown cluster', async () => {
    expect((await search(range, 'events/search', '-current-')).statusCode).toBe(200);
    const res = await search(range, 'events/search', 'elsewhere');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toMatch(/elsewhere/);
  });

  it('signs its startKey: an altered or unsigned one is a 400, the real one pages on', async () => {
    const first = auditSearchResponseSchema.parse((await search(`${range}&limit=7`)).json());
    const [key, mac] = first.startKey.split('.') as [string, string];
    expect(mac).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const flip = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
    for (const bad of [`${flip(key)}.${mac}`, `${key}.${flip(mac)}`, key]) {
      const res = await search(`${range}&limit=7&startKey=${encodeURIComponent(bad)}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error).toEqual({
        code: 'bad_parameter',
        message: 'invalid startKey: pass back the startKey of a previous search unchanged',
      });
    }
    const next = await search(`${range}&limit=7&startKey=${encodeURIComponent(first.startKey)}`);
    expect(next.statusCode).toBe(200);
    expect(next.json().events).toHaveLength(7);
  });

  it('clamps a limit above 5000 instead of refusing it', async () => {
    const res = await search(`${range}&limit=999999`);
    expect(res.statusCode).toBe(200);
    expect(auditSearchResponseSchema.parse(res.json()).events.length).toBeLessThanOrEqual(5000);
  });

  // A startKey that decodes but was not written by us: wrong id, or a field swapped in.
  const forged = (cursor: object) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

  it.each([
    ['limit=0', /limit/],
    ['order=data', /order/],
    [`startKey=${forged({ t: 1, id: '1 OR 1=1' })}`, /startKey/],
    [`startKey=${forged({ t: 'now', id: '5' })}`, /startKey/],
    [`startKey=${forged({ t: 1, id: '0' })}`, /startKey/],
    ['from=yesterday', /from/],
    [`from=${at(10).toISOString()}&to=${at(5).toISOString()}`, /from/],
    ['startKey=not-a-key', /startKey|start key/i],
  ])('rejects %s with a clear 400', async (query, message) => {
    const res = await search(query);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'bad_parameter' });
    expect(res.json().error.message).toMatch(message);
  });
});

describe('GET events/search?search=', () => {
  it('filters on the server by text in the event, ignoring case', async () => {
    const body = auditSearchResponseSchema.parse((await search(`${range}&search=MALLORY`)).json());
    expect(body.events.map((event) => event.user)).toEqual(['mallory']);
  });
});

describe('append-only', () => {
  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    'offers no %s on the events paths',
    async (method) => {
      for (const path of ['events', 'events/search', 'events/search/sessions']) {
        const res = await app.server.inject({
          method,
          url: `/v1/webapi/sites/test-cluster/${path}`,
          headers: auditor,
          payload: {},
        });
        expect(res.statusCode, `${method} ${path}`).toBe(404);
      }
      expect((await search(range)).json().events).toHaveLength(61);
    },
  );
});

describe('GET events/search/sessions', () => {
  it('returns only session end events', async () => {
    const res = await search(range, 'events/search/sessions');
    const body = auditSearchResponseSchema.parse(res.json());
    expect(body.events).toHaveLength(30);
    expect(body.events.every((event) => event.event === 'session.end')).toBe(true);
  });

  it('passes search= to the server, matching the session id', async () => {
    const res = await search(`${range}&search=S29`, 'events/search/sessions');
    const body = auditSearchResponseSchema.parse(res.json());
    expect(body.events.map((event) => [event.event, event.sid])).toEqual([['session.end', 's29']]);
  });

  it('needs recordedSessions list, which an editor lacks', async () => {
    const headers = await app.signIn(['editor'], 'eddie');
    const res = await app.server.inject({
      url: `/v1/webapi/sites/test-cluster/events/search/sessions?${range}`,
      headers,
    });
    expect(res.statusCode).toBe(403);
  });

  it('shows an access-only user just the sessions they took part in', async () => {
    await app.audit.emit({
      event: 'session.end',
      code: 'T2004I',
      user: 'ann',
      participants: ['ann', 'bob'],
      time: at(50),
      sid: 'ann-1',
    });
    const headers = await app.signIn(['access'], 'ann');
    const res = await app.server.inject({
      url: `/v1/webapi/sites/test-cluster/events/search/sessions?${range}`,
      headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().events.map((event: { sid: string }) => event.sid)).toEqual(['ann-1']);
  });
});
