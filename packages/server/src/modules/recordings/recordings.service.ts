import type { RecordingEventsQuery } from '@postern/contracts';
import { recordingChunkDefaultBytes, recordingChunkMaxBytes } from '@postern/contracts';
import { notFound } from '../../errors.js';
import { may, type Actor } from '../../access-control/access/actor.js';
import { emitAudit, remoteAddr } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import { readChunkAt, readChunkFrom, readRecordingInfo } from './playback.js';
import type { RecordingIndex, RecordingStore } from './recording-store.js';

/** Who asks for a recording, and from where (the access event names both). */
export interface RecordingReader {
  actor: Actor;
  ip?: string;
}

/**
 * Reading sealed recordings: who may read which, and the audit of it. Opening one (a download,
 * or the player's info) is audited as recording access (T2012I); the player's chunks are not,
 * as its info call already was.
 */
export class RecordingsService {
  constructor(
    private readonly store: RecordingStore,
    private readonly audit: AuditStore,
  ) {}

  /** The gzip asciicast of a recording, for a download in `format`, audited. */
  async openDownload(reader: RecordingReader, sid: string, format: string) {
    const index = await this.readable(reader, sid);
    const cast = await this.store.openCast(index.sid);
    if (!cast) throw notFound(`recording of session ${index.sid} is not found`);
    await this.audited(reader, sid, format);
    return cast;
  }

  /** The player's summary of a recording, audited. */
  async info(reader: RecordingReader, sid: string) {
    const index = await this.readable(reader, sid);
    await this.audited(reader, sid, 'player');
    return readRecordingInfo(this.store, index);
  }

  /** One chunk of events, by time or by offset. */
  async chunk(reader: RecordingReader, sid: string, query: RecordingEventsQuery) {
    const index = await this.readable(reader, sid);
    const bytes = Math.min(query.bytes ?? recordingChunkDefaultBytes, recordingChunkMaxBytes);
    return query.at !== undefined
      ? readChunkAt(this.store, index, query.at, bytes)
      : readChunkFrom(this.store, index, query.offset ?? 0, bytes);
  }

  /**
   * The index of a recording this user may read. Rules may limit reads to sessions one took part
   * in (the access preset); a recording one may not read is reported like one that does not
   * exist, so its existence does not leak.
   */
  private async readable({ actor }: RecordingReader, sid: string): Promise<RecordingIndex> {
    const index = await this.store.readIndex(sid);
    if (!index || !may(actor, 'session', 'read', { sid, participants: index.participants })) {
      throw notFound(`recording of session ${sid} is not found`);
    }
    return index;
  }

  private audited({ actor, ip }: RecordingReader, sid: string, format: string) {
    return emitAudit(this.audit, 'T2012I', {
      user: actor.name,
      sid,
      format,
      ...remoteAddr(ip),
    });
  }
}
