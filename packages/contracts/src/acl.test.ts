import { describe, expect, it } from 'vitest';
import { aclAreas, emptyAcl } from './acl.js';

describe('emptyAcl', () => {
  it('denies every verb on every area of spec §3 and gives integrations a use flag', () => {
    const acl = emptyAcl();
    // The spec's 25, and the reference's `bots` (Manage Bots).
    expect(aclAreas).toHaveLength(26);
    expect(aclAreas.at(-1)).toBe('bots');
    for (const area of aclAreas) {
      expect(acl[area]).toMatchObject({
        list: false,
        read: false,
        edit: false,
        create: false,
        remove: false,
      });
    }
    expect(acl.integrations.use).toBe(false);
  });

  it('defaults the desktop flags to true, as spec §3 says', () => {
    expect(emptyAcl()).toMatchObject({
      clipboardSharingEnabled: true,
      desktopSessionRecording: true,
      directorySharing: true,
    });
  });
});
