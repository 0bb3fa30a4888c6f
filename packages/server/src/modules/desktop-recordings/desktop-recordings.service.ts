import type { DesktopRecordingInfo } from '@postern/contracts';
import type { BlobStore } from '../../blobs/blob-store.js';
import { notFound } from '../../errors.js';
import { may } from '../../access-control/access/actor.js';
import { emitAudit, remoteAddr } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import type { RecordingReader } from '../recordings/recordings.service.js';
import { readDesktopIndex, type DesktopRecordingIndex } from './desktop-recording-blobs.js';

/**
 * Reading sealed desktop recordings, under the terminal recordings' rules: the route asks for
 * `recordedSessions` read, and the `session` rules must allow reading this one (`participants`
 * from its seal: the access preset reads only sessions its user took part in). A recording one
 * may not read is reported like one that does not exist. Opening one for playback is audited
 * as recording access (T2012I, `format: "desktop"`); its info is not.
 */
export class DesktopRecordingsService {
  constructor(
    private readonly blobs: BlobStore,
    private readonly audit: AuditStore,
  ) {}

  async info(reader: RecordingReader, sid: string): Promise<DesktopRecordingInfo> {
    const index = await this.readable(reader, sid);
    return {
      sid: index.sid,
      durationMs: index.durationMs,
      incomplete: index.incomplete,
      width: Math.max(1, index.width),
      height: Math.max(1, index.height),
      size: index.size,
      keyframeTimes: index.keyframes.map((keyframe) => keyframe.ms),
      desktopName: index.desktopName,
    };
  }

  /** The seal of a recording to play, audited. */
  async openForPlayback(reader: RecordingReader, sid: string): Promise<DesktopRecordingIndex> {
    const index = await this.readable(reader, sid);
    await emitAudit(this.audit, 'T2012I', {
      user: reader.actor.name,
      sid,
      format: 'desktop',
      ...remoteAddr(reader.ip),
    });
    return index;
  }

  private async readable({ actor }: RecordingReader, sid: string) {
    const index = await readDesktopIndex(this.blobs, sid);
    if (!index || !may(actor, 'session', 'read', { sid, participants: index.participants })) {
      throw notFound(`recording of session ${sid} is not found`);
    }
    return index;
  }
}
