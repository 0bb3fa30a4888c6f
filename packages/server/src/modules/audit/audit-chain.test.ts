import { describe, expect, it } from 'vitest';
import { canonicalJson, chainHash, CHAIN_GENESIS } from './audit-chain.js';

describe('the audit chain’s canonical JSON', () => {
  it('keeps the hashes of chains written before: a pinned event hashes as it always did', () => {
    const event = JSON.parse(
      '{"event":"db.session.query","code":"TDB02I","time":"2026-11-25T12:00:00.000Z","uid":"0b1c","user":"alice","sid":"s1","cluster_name":"c","query":"SELECT 1;","parameters":["a",null,"\\u00e9"],"nested":{"z":1,"b":[{"y":true,"x":1.5}],"10":"ten","2":"two"},"__proto__":{"p":1}}',
    ) as unknown;
    expect(canonicalJson(event)).toBe(
      '{"__proto__":{"p":1},"cluster_name":"c","code":"TDB02I","event":"db.session.query","nested":{"10":"ten","2":"two","b":[{"x":1.5,"y":true}],"z":1},"parameters":["a",null,"é"],"query":"SELECT 1;","sid":"s1","time":"2026-11-25T12:00:00.000Z","uid":"0b1c","user":"alice"}',
    );
    // The chain format (docs/verify.md): changing it breaks every chain written before.
    expect(chainHash(CHAIN_GENESIS, event)).toBe(
      '2d9a14fe8c2b4ef5c98ce73989b6c90bdb2af80cf8445574ca9033e0103af380',
    );
  });

  it('does not depend on the order the keys were written in', () => {
    const one = JSON.parse('{"b":1,"a":{"d":[{"f":1,"e":2}],"c":null}}') as unknown;
    const other = JSON.parse('{"a":{"c":null,"d":[{"e":2,"f":1}]},"b":1}') as unknown;
    expect(canonicalJson(one)).toBe(canonicalJson(other));
  });
});
