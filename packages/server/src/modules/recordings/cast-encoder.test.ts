import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { CastEncoder } from './cast-encoder.js';
import { HeldEvents } from './held-events.js';
import { nextChain } from './recording-integrity.js';

const encoders: CastEncoder[] = [];
afterEach(async () => {
  await Promise.all(encoders.splice(0).map((e) => e.stop()));
});

function encoder() {
  const made = new CastEncoder();
  encoders.push(made);
  return made;
}

describe('CastEncoder', () => {
  it('makes the same cast lines JSON.stringify makes, across blocks, on its own thread', async () => {
    const held = new HeldEvents();
    const big = Buffer.alloc(300 * 1024, 'z'); // does not fit the first block: a second one
    const outputs = [
      Buffer.from('plain \x1b[1mbold\x1b[0m\r\n'),
      Buffer.from('quote " backslash \\ tab \t nul \x00 del \x7f'),
      Buffer.from('héllo ✓ 🙂'),
      Buffer.from([0x61, 0xff, 0xfe, 0x62]), // not UTF-8: U+FFFD, as toString('utf8') gives
      big,
    ];
    held.line('{"version":2}\n');
    outputs.forEach((data, i) => held.output(i / 10, data));
    held.text({ t: 0.7, kind: 'r', text: '100x30' });
    held.text({ t: 0.8, kind: 'm', text: 'bob joined (observer)' });
    const { events, blocks } = held.take();
    expect(blocks.length).toBe(2);

    const { member, castLength } = await encoder().encode(events, blocks, 1, {
      recording: 1,
      seed: 'seed',
    });

    const expected = [
      '{"version":2}\n',
      ...outputs.map((data, i) => `${JSON.stringify([i / 10, 'o', data.toString('utf8')])}\n`),
      `${JSON.stringify([0.7, 'r', '100x30'])}\n`,
      `${JSON.stringify([0.8, 'm', 'bob joined (observer)'])}\n`,
    ].join('');
    const cast = gunzipSync(member);
    expect(cast.toString('utf8')).toBe(expected);
    expect(castLength).toBe(cast.length);
    // Handed over, not copied: the blocks are detached from this thread.
    expect(blocks.every((block) => block.byteLength === 0)).toBe(true);
  });

  it('escapes long output with quotes, controls and wide characters the way JSON.stringify does', async () => {
    // Longer than the 32 KiB pieces the encoder escapes at a time, with characters of every
    // width crossing the cuts between pieces.
    const text = 'line "quoted" \\ back\tslash é ✓ 🙂 \x1b[31mred\x1b[0m \x00\x7f\r\n'.repeat(3000);
    const output = Buffer.from(text);
    expect(output.length).toBeGreaterThan(3 * 32 * 1024);
    const held = new HeldEvents();
    held.output(1.25, output);
    const { events, blocks } = held.take();
    const { member } = await encoder().encode(events, blocks, 1, { recording: 1, seed: 's' });
    expect(gunzipSync(member).toString('utf8')).toBe(`${JSON.stringify([1.25, 'o', text])}\n`);
  });

  it('records a character split between two outputs whole, even across members', async () => {
    const enc = encoder();
    const smile = Buffer.from('🙂');
    const member = async (parts: Buffer[], seed?: string) => {
      const h = new HeldEvents();
      parts.forEach((part, i) => h.output(i, part));
      const { events, blocks } = h.take();
      const made = await enc.encode(events, blocks, 0, { recording: 1, ...(seed ? { seed } : {}) });
      return gunzipSync(made.member).toString();
    };
    const first = await member([Buffer.from('a'), smile.subarray(0, 1)], 'seed');
    const second = await member([smile.subarray(1, 3)]);
    const third = await member([Buffer.concat([smile.subarray(3), Buffer.from('b')])]);
    expect(first).toBe('[0,"o","a"]\n[1,"o",""]\n');
    expect(second).toBe('[0,"o",""]\n');
    expect(third).toBe('[0,"o","🙂b"]\n');
  });

  it('stores (level 0) or compresses (level 1) as asked', async () => {
    const text = Buffer.from('the same line again\r\n'.repeat(10_000));
    const held = () => {
      const h = new HeldEvents();
      h.output(0, text);
      return h.take();
    };
    const stored = await encoder().encode(held().events, held().blocks, 0, {
      recording: 1,
      seed: 's',
    });
    const one = held();
    const compressed = await encoders[0]!.encode(one.events, one.blocks, 1, {
      recording: 2,
      seed: 's',
    });
    expect(stored.member.length).toBeGreaterThan(text.length);
    expect(compressed.member.length).toBeLessThan(text.length / 10);
    expect(gunzipSync(stored.member)).toEqual(gunzipSync(compressed.member));
  });

  it('probes: compresses a member whose sample halves, stores one whose sample does not', async () => {
    const noise = Buffer.from(randomBytes(192 * 1024).toString('base64'));
    const text = Buffer.from('the same line again\r\n'.repeat(10_000));
    const enc = encoder();
    const probe = async (bytes: Buffer, recording: number) => {
      const h = new HeldEvents();
      h.output(0, bytes);
      const { events, blocks } = h.take();
      return enc.encode(events, blocks, 'probe', { recording, seed: 's' });
    };
    const incompressible = await probe(noise, 1);
    const compressible = await probe(text, 2);
    // Stored: the member is the cast line and gzip's framing, larger than the output.
    expect(incompressible.member.length).toBeGreaterThan(noise.length);
    expect(gunzipSync(incompressible.member).toString()).toBe(
      `${JSON.stringify([0, 'o', noise.toString()])}\n`,
    );
    expect(compressible.member.length).toBeLessThan(text.length / 10);
  });

  it('answers in order, rejects a bad request alone, and keeps working', async () => {
    const enc = encoder();
    const request = (word: string) => {
      const h = new HeldEvents();
      h.output(0, Buffer.from(word));
      return h.take();
    };
    const a = request('first');
    const b = request('second');
    const bad = request('bad');
    bad.events[0] = { t: 0, kind: 'o', block: 5, start: 0, end: 3 }; // no such block
    const results = await Promise.allSettled([
      enc.encode(a.events, a.blocks, 0, { recording: 1, seed: 's' }),
      enc.encode(bad.events, bad.blocks, 0, { recording: 2, seed: 's' }),
      enc.encode(b.events, b.blocks, 0, { recording: 3, seed: 's' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const text = (r: PromiseSettledResult<{ member: Buffer }>) =>
      r.status === 'fulfilled' ? gunzipSync(r.value.member).toString() : '';
    expect(text(results[0]!)).toBe('[0,"o","first"]\n');
    expect(text(results[2]!)).toBe('[0,"o","second"]\n');
    expect((results[1] as PromiseRejectedResult).reason.message).toMatch(/^recording encoder: /);
  });

  it('fails what is waiting when it is stopped, and starts again on the next request', async () => {
    const enc = encoder();
    const h = new HeldEvents();
    h.output(0, Buffer.alloc(4 * 1024 * 1024, 'x'));
    const first = h.take();
    const waiting = expect(
      enc.encode(first.events, first.blocks, 1, { recording: 1, seed: 's' }),
    ).rejects.toThrow('the recording encoder stopped');
    await enc.stop();
    await waiting;
    const again = new HeldEvents();
    again.output(0, Buffer.from('back'));
    const next = again.take();
    const { member } = await enc.encode(next.events, next.blocks, 0, { recording: 2, seed: 's' });
    expect(gunzipSync(member).toString()).toBe('[0,"o","back"]\n');
  });

  it('extends the chain of each recording from its seed, member by member, and forgets it when told', async () => {
    const enc = encoder();
    const member = (word: string, recording: number, seed?: string) => {
      const h = new HeldEvents();
      h.output(0, Buffer.from(word));
      const { events, blocks } = h.take();
      return enc.encode(events, blocks, 0, { recording, ...(seed ? { seed } : {}) });
    };
    const [a1, b1, a2] = await Promise.all([
      member('a1', 1, 'seed-a'),
      member('b1', 2, 'seed-b'),
      member('a2', 1),
    ]);
    expect(a1.chain).toBe(nextChain('seed-a', a1.member));
    expect(b1.chain).toBe(nextChain('seed-b', b1.member));
    expect(a2.chain).toBe(nextChain(a1.chain, a2.member));
    enc.forget(1);
    await expect(member('a3', 1)).rejects.toThrow('the chunk chain of this recording was lost');
  });
});
