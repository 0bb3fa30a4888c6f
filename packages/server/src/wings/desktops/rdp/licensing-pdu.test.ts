import { describe, expect, it } from 'vitest';
import { isLicensingPdu } from './rdp-client.js';

describe('telling licensing PDUs from share PDUs during the connection', () => {
  it('a Demand Active whose length has the SEC_LICENSE_PKT bit is a share PDU (xrdp, fast-path on)', () => {
    // The first bytes xrdp sent: totalLength 0x019a, pduType 0x11 (Demand Active, version 1).
    const demandActive = Buffer.alloc(0x019a);
    Buffer.from('9a011100ec03ea030100', 'hex').copy(demandActive);
    expect(isLicensingPdu(demandActive)).toBe(false);
  });

  it('a licensing error alert (security header with SEC_LICENSE_PKT) is one', () => {
    const alert = Buffer.from('80000000ff0310000700000002000000040000', 'hex');
    expect(isLicensingPdu(alert)).toBe(true);
  });
});
