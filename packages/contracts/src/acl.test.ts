import { describe, expect, it } from 'vitest';
import { aclAreas, emptyAcl } from './acl.js';

describe('emptyAcl', () => {
  it('denies every verb on every area of spec §3 and gives integrations a use flag', () => {
    const acl = emptyAcl();
    expect(aclAreas).toHaveLength(25);
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
