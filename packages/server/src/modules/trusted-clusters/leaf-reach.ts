import type { MfaRequiredRequest } from '@postern/contracts';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../../errors.js';
import { answerMessage, asSocket, parseOrUndefined } from '../../net/post-json.js';
import type { LeafCaller } from './leaf-grants.js';

/** How the root reaches a leaf for one user: the leaf session the leaf granted them. */
export interface LeafPassage {
  dial(): Promise<Duplex>;
  /** The leaf session's cookie and bearer. */
  headers: Record<string, string>;
  /** The leaf session's id, which per-session MFA subjects are bound to. */
  session: string;
  /** The leaf no longer takes the session (it answered 401): the next call asks for another. */
  drop(): void;
}

/**
 * What a wing on a root needs to serve a leaf's resources to the root's users: the trusted-clusters
 * part fills it in, since the platform never imports a wing nor a wing that part's internals.
 */
export interface LeafReach {
  /** Whether `name` is a leaf this cluster trusts. */
  isLeaf(name: string): boolean;
  passage(leaf: string, user: LeafCaller): Promise<LeafPassage>;
  /** Whether the leaf's roles for the user ask for a per-session MFA check on `resource`. */
  sessionMfaRequired(
    leaf: string,
    user: LeafCaller,
    resource: MfaRequiredRequest,
  ): Promise<boolean>;
  /** This root's signed word to `leaf` that `user` passed the check for `subject`. */
  word(leaf: string, user: string, subject: string): Promise<string>;
  /**
   * Relays a client's connection and its tunnel to the leaf both ways: the root audits the hop's
   * start and end and ends it when it locks the user or their credential ends (leaf-hop.ts).
   */
  hop(client: Duplex, tunnel: Duplex, hop: LeafHopOf): void;
}

/** Who goes to which of a leaf's resources, as the root audits and watches the hop. */
export interface LeafHopOf {
  leaf: string;
  kind: 'database' | 'app';
  name: string;
  user: string;
  roles: string[];
  /** The MFA device their credential was signed in with (an `mfa_device` lock ends the hop). */
  mfaDevice?: string | undefined;
  /** The access requests their credential assumed (an `access_request` lock ends the hop). */
  accessRequests?: readonly string[] | undefined;
  /** The bot instance their certificate was issued to (a `bot_instance` lock ends the hop). */
  botInstance?: string | undefined;
  /** When the user's credential ends (ms). */
  expiresMs: number;
  remoteAddr: string;
}

/** The platform's meeting point: empty until the trusted-clusters part attaches its reach. */
export class LeafReachPoint {
  private reach: LeafReach | undefined;

  attach(reach: LeafReach): void {
    this.reach = reach;
  }

  /** Present once the trusted-clusters part is built. */
  get side(): LeafReach | undefined {
    return this.reach;
  }

  isLeaf(name: string): boolean {
    return this.reach?.isLeaf(name) === true;
  }
}

const answerTimeoutMs = 15_000;
const maxAnswerBytes = 4 * 1024 * 1024;

/**
 * A GET through the leaf's tunnel with the leaf session: its JSON answer, or the leaf's refusal
 * as an ApiError (a 401 also drops the passage, so the next call asks for a new session).
 */
export async function leafGetJson(passage: LeafPassage, path: string): Promise<unknown> {
  const stream = await passage.dial();
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        path,
        host: 'leaf',
        headers: { ...passage.headers, connection: 'close' },
        createConnection: () => asSocket(stream),
        timeout: answerTimeoutMs,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxAnswerBytes) request.destroy(new Error('the leaf answered too much'));
          else chunks.push(chunk);
        });
        answer.on('end', () => {
          const json = parseOrUndefined(Buffer.concat(chunks).toString('utf8'));
          const status = answer.statusCode ?? 0;
          if (status === 200) return resolve(json);
          if (status === 401) passage.drop();
          const code = status === 404 ? 'not_found' : 'access_denied';
          reject(new ApiError(code, answerMessage({ status, json })));
        });
        answer.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('the leaf did not answer in time')));
    request.on('error', reject);
    request.end();
  });
}
