import { describe, expect, it } from 'vitest';
import { limitInFlight, openSshInFlight } from './in-flight.js';

const MiB = 1024 * 1024;

/** The part of an ssh2 channel limitInFlight touches: what the peer granted. */
function channel(window: number, packetSize = 32 * 1024) {
  return { outgoing: { window, packetSize } };
}

describe('limitInFlight', () => {
  it('keeps 512 KiB in flight towards OpenSSH, of the 2 MiB it grants', () => {
    const jump = channel(2 * MiB);
    limitInFlight(jump, 'OpenSSH_9.2p1');
    expect(jump.outgoing.window).toBe(openSshInFlight);
    expect(openSshInFlight).toBe(512 * 1024);
  });

  it('leaves the window of any other implementation as granted', () => {
    for (const software of ['ssh2js1.17.0', 'PuTTY_Release_0.81', 'Go', undefined]) {
      const other = channel(2 * MiB);
      limitInFlight(other, software);
      expect(other.outgoing.window).toBe(2 * MiB);
    }
  });

  it('stays above four of the peer’s packets, which OpenSSH acknowledges after three', () => {
    const bigPackets = channel(8 * MiB, 256 * 1024);
    limitInFlight(bigPackets, 'OpenSSH_10.0');
    expect(bigPackets.outgoing.window).toBe(MiB);
  });

  it('never raises a window the peer granted below the cap', () => {
    const small = channel(128 * 1024);
    limitInFlight(small, 'OpenSSH_9.2p1');
    expect(small.outgoing.window).toBe(128 * 1024);
  });

  it('fails loudly when ssh2 no longer has the field', () => {
    expect(() => limitInFlight({}, 'OpenSSH_9.2p1')).toThrow(/ssh2 internals changed/);
  });
});
