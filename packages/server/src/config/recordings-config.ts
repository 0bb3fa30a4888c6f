import path from 'node:path';
import type { S3Location } from '../blobs/s3/s3-client.js';
import { ConfigError } from './config-error.js';
import { parseDuration } from './duration.js';
import type { FileConfig } from './file-schema.js';
import { readSecretFile } from './secret-file.js';

/** Session recordings: where, and whether a storage failure ends the session. */
export interface RecordingsConfig {
  dir: string;
  onFailure: 'fail_closed' | 'fail_open';
  /** How often the volume's usage is checked, and the percent that is announced. */
  diskCheckIntervalMs: number;
  diskWarnPercent: number;
  /** Set when recordings go to an S3-compatible bucket (through the spool) instead of `dir`. */
  s3?: S3Location;
  /** How long recorded bytes may wait in memory before they reach the spool. */
  spoolFlushIntervalMs: number;
}

/** The `recordings:` section: a directory under the data dir by default, or an S3 bucket. */
export function resolveRecordings(
  recordings: FileConfig['recordings'],
  dataDir: string,
): RecordingsConfig {
  return {
    dir: path.resolve(dataDir, recordings?.dir ?? 'recordings'),
    onFailure: recordings?.on_failure ?? 'fail_closed',
    diskCheckIntervalMs: parseDiskCheckInterval(recordings?.disk_check_interval ?? '60s'),
    diskWarnPercent: recordings?.disk_warn_percent ?? 90,
    s3: resolveS3Recordings(recordings),
    spoolFlushIntervalMs: parseSpoolFlushInterval(recordings?.spool_flush_interval ?? '2s'),
  };
}

function parseDiskCheckInterval(value: string | number): number {
  const ms = parseDuration(value, 'recordings.disk_check_interval');
  if (ms < 1000) throw new ConfigError('recordings.disk_check_interval must be at least 1s');
  return ms;
}

/** `recordings: {type: s3, …}`: the bucket's location and credentials, checked at start. */
function resolveS3Recordings(recordings: FileConfig['recordings']): S3Location | undefined {
  if (recordings?.type !== 's3') {
    const stray = (['bucket', 'endpoint', 'region', 'credentials'] as const).find(
      (key) => recordings?.[key] !== undefined,
    );
    if (stray) throw new ConfigError(`recordings.${stray} is for recordings.type: s3`);
    return undefined;
  }
  if (!recordings.bucket) throw new ConfigError('recordings.type s3 needs recordings.bucket');
  const given = recordings.credentials;
  let credentials: S3Location['credentials'];
  if (given) {
    if (!given.secret_access_key === !given.secret_access_key_file) {
      throw new ConfigError(
        'recordings.credentials needs one of secret_access_key and secret_access_key_file',
      );
    }
    const secretAccessKey =
      given.secret_access_key ??
      readSecretFile(
        given.secret_access_key_file!,
        'recordings.credentials.secret_access_key_file',
      );
    credentials = { accessKeyId: given.access_key_id, secretAccessKey };
  }
  return {
    bucket: recordings.bucket,
    endpoint: recordings.endpoint,
    region: recordings.region ?? 'us-east-1',
    // A custom endpoint is almost always a server that wants paths (MinIO, Swift, Ceph).
    pathStyle: recordings.path_style ?? recordings.endpoint !== undefined,
    prefix: recordings.prefix ?? '',
    credentials,
  };
}

function parseSpoolFlushInterval(value: string | number): number {
  const ms = parseDuration(value, 'recordings.spool_flush_interval');
  // The promise to people: a proxy killed mid-session loses at most 5 s of its recordings.
  if (ms < 100 || ms > 5000) {
    throw new ConfigError('recordings.spool_flush_interval must be between 100ms and 5s');
  }
  return ms;
}
