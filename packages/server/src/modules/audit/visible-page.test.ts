import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { visiblePage } from './visible-page.js';

let app: TestApp;
const base = Date.parse('2026-02-01T00:00:00Z');
const at = (seconds: number) => new Date(base + seconds * 1000);
const range = `from=${at(0).toISOString()}&to=${at(10_000).toISOString()}`;
/** Where ann's five sessions fall among 1,200 of other people's. */
const annAt = [3, 4, 700, 701, 1190];

beforeAll(async () => {
  app = await createTestApp();
  for (let i = 0; i < 1200; i++) {
    const ann = annAt.includes(i);
    await app.audit.emit({
      event: 'session.end',
      code: 'T2004I',
      user: ann ? 'ann' : 'bob',
      participants: ann ? ['ann'] : ['bob', 'carl'],
      time: at(i),
      sid: ann ? `ann-${i}` : `other-${i}`,
    });
  }
});
afterAll(() => app.close());

async function pages(headers: Record<string, string>, limit: number) {
  const seen: { sids: string[]; keys: string[]; startKey: string }[] = [];
  let startKey = '';
  do {
    const res = await app.server.inject({
      url: `/v1/webapi/sites/-current-/events/search/sessions?${range}&limit=${limit}${
        startKey ? `&startKey=${encodeURIComponent(startKey)}` : ''
      }`,
      headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { events: { sid: string }[]; startKey: string };
    startKey = body.startKey;
    seen.push({ sids: body.events.map((e) => e.sid), keys: Object.keys(body), startKey });
  } while (startKey && seen.length < 50);
  return seen;
}

describe('the recordings list filters before it pages', () => {
  it('gives a participant full pages of their sessions only, never an empty one', async () => {
    const ann = await app.signIn(['access'], 'ann');
    const seen = await pages(ann, 2);
    expect(seen.map((page) => page.sids)).toEqual([
      ['ann-1190', 'ann-701'],
      ['ann-700', 'ann-4'],
      ['ann-3'],
    ]);
    expect(seen.at(-1)!.startKey).toBe('');
    // Nothing but the events and the cursor: no total, nothing counting what was hidden.
    for (const page of seen) expect(page.keys.sort()).toEqual(['events', 'startKey']);
  });

  it('ends on a full last page without a cursor leading to an empty one', async () => {
    const ann = await app.signIn(['access'], 'ann');
    const seen = await pages(ann, 5);
    expect(seen.map((page) => page.sids.length)).toEqual([5]);
    expect(seen[0]!.startKey).toBe('');
  });

  it('pages an auditor through everything as before', async () => {
    const auditor = await app.signIn(['auditor'], 'audrey');
    const seen = await pages(auditor, 500);
    expect(seen.map((page) => page.sids.length)).toEqual([500, 500, 200]);
    expect(new Set(seen.flatMap((page) => page.sids)).size).toBe(1200);
  });
});

describe('the export’s stored-order read filters before it pages', () => {
  // app.audit holds the 1,200 session ends above, stored in time order; ann's are five of them.
  const annOnly = (event: { user?: unknown }) => event.user === 'ann';
  const read = (q: { limit: number; startKey?: string }) => app.audit.readStored(q);

  it('fills each page with what the caller may read, and ends with the position after all', async () => {
    const first = await visiblePage({ limit: 3 }, read, annOnly);
    expect(first.events.map((event) => event.sid)).toEqual(['ann-3', 'ann-4', 'ann-700']);
    const last = await visiblePage({ limit: 3, startKey: first.startKey }, read, annOnly);
    expect(last.events.map((event) => event.sid)).toEqual(['ann-701', 'ann-1190']);
    // Short: the end of the log for now, with a position past bob's events after ann's last.
    expect(last.startKey).not.toBe('');
    const after = await visiblePage({ limit: 3, startKey: last.startKey }, read, annOnly);
    expect(after).toEqual({ events: [], startKey: last.startKey });
    await app.audit.emit({ event: 'session.end', code: 'T2004I', user: 'ann', sid: 'ann-new' });
    const fresh = await visiblePage({ limit: 3, startKey: last.startKey }, read, annOnly);
    expect(fresh.events.map((event) => event.sid)).toEqual(['ann-new']);
  });
});
