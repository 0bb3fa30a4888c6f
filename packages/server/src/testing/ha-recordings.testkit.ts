import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { apiPaths, type RecordingChunk, type RecordingInfo } from '@postern/contracts';
import { PostgresBlobSpool } from '../blobs/spool/blob-spool.postgres.js';
import type { SpoolEntry } from '../blobs/spool/blob-spool.js';
import type { HaStorage, HaUser } from './ha-storage.testkit.js';

export interface PlayedRecording {
  info: RecordingInfo;
  /** The output events' text, in order: what the player draws. */
  output: string;
  /** Whether the player's chunks ran to the end without damage. */
  whole: boolean;
}

/**
 * A sealed recording as the console's player reads it through `webUrl`: the info, then every
 * chunk of events by offset. Undefined while it is not there (404: unsealed or unknown).
 */
export async function playRecording(
  webUrl: string,
  clusterName: string,
  user: HaUser,
  sid: string,
): Promise<PlayedRecording | undefined> {
  const get = (url: string) => fetch(new URL(url, webUrl), { headers: user.headers });
  const answer = await get(apiPaths.sessionRecordingInfo(clusterName, sid));
  if (answer.status === 404) return undefined;
  if (!answer.ok) throw new Error(`recording info: ${answer.status} ${await answer.text()}`);
  const info = (await answer.json()) as RecordingInfo;
  let output = '';
  let whole = true;
  for (let offset: number | null = 0; offset !== null;) {
    const url = `${apiPaths.sessionRecordingEvents(clusterName, sid)}?offset=${offset}`;
    const page = await get(url);
    if (!page.ok) throw new Error(`recording events: ${page.status} ${await page.text()}`);
    const chunk = (await page.json()) as RecordingChunk;
    for (const [, kind, data] of chunk.events) if (kind === 'o') output += data;
    if (chunk.damaged) whole = false;
    offset = chunk.next;
  }
  return { info, output, whole };
}

/** The recordings' spool entries in the cluster's database whose names start with `prefix`. */
export async function spoolEntries(storage: HaStorage, prefix = ''): Promise<SpoolEntry[]> {
  const spool = new PostgresBlobSpool({ url: storage.url, schema: storage.schema });
  try {
    await spool.init();
    return await spool.list(prefix);
  } finally {
    await spool.close();
  }
}

/** The keys in `bucket` that start with `prefix`. */
export async function bucketKeys(s3: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }),
    );
    keys.push(...(page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : [])));
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return keys.sort();
}

/** `tick N MILLIS` lines a test's counter loop printed: each tick's number and time. */
export function ticksIn(text: string): { n: number; at: number }[] {
  return [...text.matchAll(/tick (\d+) (\d{13})\b/g)].map((m) => ({
    n: Number(m[1]),
    at: Number(m[2]),
  }));
}

/** A shell loop that prints `tick N MILLIS` every `everyMs`, forever. */
export const tickLoop = (everyMs = 200) =>
  `i=0; while :; do i=$((i+1)); echo "tick $i $(date +%s%3N)"; sleep ${everyMs / 1000}; done\r`;
