import type { AuditEntryDraft } from '../entry.js';

/** One SFTP operation's entry; every operation has a success (I) and a failure (E) code. */
function sftp(operation: string, failed = false): AuditEntryDraft {
  return failed
    ? {
        type: 'sftp',
        desc: `SFTP ${operation} Failed`,
        message: `User [{user}] failed SFTP ${operation.toLowerCase()} [{path}] on node [{server_hostname}]: {error}`,
      }
    : {
        type: 'sftp',
        desc: `SFTP ${operation}`,
        message: `User [{user}] ran SFTP ${operation.toLowerCase()} [{path}] on node [{server_hostname}]`,
      };
}

/** SFTP requests, in the reference system's TS0xx range. */
export const sftpEvents = {
  TS001I: sftp('Open'),
  TS001E: sftp('Open', true),
  TS002I: sftp('Close'),
  TS002E: sftp('Close', true),
  TS003I: sftp('Read'),
  TS003E: sftp('Read', true),
  TS004I: sftp('Write'),
  TS004E: sftp('Write', true),
  TS005I: sftp('Lstat'),
  TS005E: sftp('Lstat', true),
  TS006I: sftp('Fstat'),
  TS006E: sftp('Fstat', true),
  TS007I: sftp('Setstat'),
  TS007E: sftp('Setstat', true),
  TS008I: sftp('Fsetstat'),
  TS008E: sftp('Fsetstat', true),
  TS009I: sftp('Opendir'),
  TS009E: sftp('Opendir', true),
  TS010I: sftp('Readdir'),
  TS010E: sftp('Readdir', true),
  TS011I: sftp('Remove'),
  TS011E: sftp('Remove', true),
  TS012I: sftp('Mkdir'),
  TS012E: sftp('Mkdir', true),
  TS013I: sftp('Rmdir'),
  TS013E: sftp('Rmdir', true),
  TS014I: sftp('Realpath'),
  TS014E: sftp('Realpath', true),
  TS015I: sftp('Stat'),
  TS015E: sftp('Stat', true),
  TS016I: sftp('Rename'),
  TS016E: sftp('Rename', true),
  TS017I: sftp('Readlink'),
  TS017E: sftp('Readlink', true),
  TS018I: sftp('Symlink'),
  TS018E: sftp('Symlink', true),
  TS019I: sftp('Link'),
  TS019E: sftp('Link', true),
} as const satisfies Record<string, AuditEntryDraft>;
