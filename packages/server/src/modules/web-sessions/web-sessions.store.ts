import { createHash } from 'node:crypto';
import type { Backend } from '../../backend/index.js';

/**
 * A signed-in browser. The cookie holds the session id; the store keys the record by the id's
 * SHA-256, so a copy of the database alone does not yield a usable cookie.
 */
export interface WebSessionRecord {
  user: string;
  roles: string[];
  bearerToken: string;
  bearerExpires: string;
  expires: string;
  created: string;
}

const prefix = '/web_sessions/';

export function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

export class WebSessionStore {
  constructor(private readonly backend: Backend) {}

  async get(sessionId: string): Promise<WebSessionRecord | null> {
    const item = await this.backend.get(prefix + hashSessionId(sessionId));
    return item ? (JSON.parse(item.value) as WebSessionRecord) : null;
  }

  async put(sessionId: string, record: WebSessionRecord): Promise<void> {
    await this.backend.upsert({
      key: prefix + hashSessionId(sessionId),
      value: JSON.stringify(record),
      expires: new Date(record.expires),
    });
  }

  async delete(sessionId: string): Promise<void> {
    await this.backend.delete(prefix + hashSessionId(sessionId)).catch(() => undefined);
  }
}
