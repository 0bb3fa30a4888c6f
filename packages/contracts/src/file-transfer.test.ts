import { describe, expect, it } from 'vitest';
import { apiPaths } from './api-paths.js';
import { fileTransferQuerySchema, remoteFilenameSchema } from './file-transfer.js';

describe('file transfer contract', () => {
  it('builds the path with each segment encoded', () => {
    expect(apiPaths.fileTransfer('root', 'web 1', 'ec2-user')).toBe(
      '/v1/webapi/sites/root/nodes/web%201/ec2-user/scp',
    );
  });

  it('accepts locations and names a shell user would type', () => {
    expect(fileTransferQuerySchema.parse({ location: ' ~/logs ', filename: 'app.log' })).toEqual({
      location: '~/logs',
      filename: 'app.log',
    });
    expect(remoteFilenameSchema.safeParse('résumé (1).pdf').success).toBe(true);
  });

  it('refuses empty or NUL-holding locations and names that are not one segment', () => {
    expect(fileTransferQuerySchema.safeParse({ location: '' }).success).toBe(false);
    expect(fileTransferQuerySchema.safeParse({ location: 'a\0b' }).success).toBe(false);
    for (const name of ['', '.', '..', 'a/b', 'x\0', 'é'.repeat(128)]) {
      expect(remoteFilenameSchema.safeParse(name).success, JSON.stringify(name)).toBe(false);
    }
  });
});
