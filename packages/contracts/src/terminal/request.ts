import { sessionMfaResponseSchema } from '../identity/webauthn.js';
import { z } from 'zod';
import { participantModes } from '../roles.js';

/** Terminal sizes outside (0, 4096) are refused (reference §2.1). */
export const terminalSizeSchema = z.object({
  w: z.number().int().min(1, 'width must be above 0').max(4095, 'width must be below 4096'),
  h: z.number().int().min(1, 'height must be above 0').max(4095, 'height must be below 4096'),
});
export type TerminalSize = z.infer<typeof terminalSizeSchema>;

/**
 * The `params` query of the terminal socket (`TerminalRequest`): a new session names a server and
 * login; a join names `sid` (and optionally the mode).
 */
export const terminalRequestSchema = z
  .object({
    server_id: z.string().max(256).default(''),
    login: z.string().max(256).default(''),
    term: terminalSizeSchema,
    sid: z.string().max(64).default(''),
    mode: z.enum(participantModes).optional(),
    /**
     * Postern's addition (docs/protocol.md): run this command in a PTY instead of a login shell;
     * the session ends when it exits, and an `exec` event records its exit status.
     */
    command: z.string().max(8192).default(''),
  })
  .refine((r) => r.sid || (r.server_id && r.login), {
    message: 'name server_id and login for a new session, or sid to join one',
  });
export type TerminalRequest = z.input<typeof terminalRequestSchema>;

/** The first (text) frame on the socket: the bearer travels in-band, never in the URL. */
export const terminalAuthFrameSchema = z.object({ token: z.string().min(1).max(4096) });

/**
 * `k` payload (server → client): the key that resumes this session over a new socket, and how
 * long after a dropped connection the server keeps the session for it (docs/protocol.md §6.1).
 */
export const resumeKeySchema = z.object({
  sid: z.string().min(1).max(64),
  key: z.string().min(1).max(128),
  grace_ms: z.number().int().min(0),
});
export type ResumeKey = z.infer<typeof resumeKeySchema>;

/**
 * The first frame of a socket that resumes a session: the bearer (the same user), the key of
 * the last `k` frame, and how many output payload bytes the client has received, from which
 * the server sends again.
 */
export const terminalResumeFrameSchema = terminalAuthFrameSchema.extend({
  resume: z.object({
    sid: z.string().min(1).max(64),
    key: z.string().min(1).max(128),
    received: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  }),
});
export type TerminalResumeFrame = z.infer<typeof terminalResumeFrameSchema>;

/** `POST terminal/sessions/{sid}/leave`: the key of the last `k` frame of that session. */
export const terminalLeaveRequestSchema = terminalResumeFrameSchema.shape.resume.pick({
  key: true,
});

/**
 * The first frame of a desktop's socket: the bearer, and the answer to a per-session MFA
 * challenge when the roles ask for one (require_session_mfa; `mfa/session/challenge` with
 * `desktop:<name>`).
 */
export const desktopAuthFrameSchema = terminalAuthFrameSchema.extend({
  mfa_response: sessionMfaResponseSchema.optional(),
});

/** The server's answer to the auth frame. */
export interface CreateSessionResponse {
  type: 'create_session_response';
  status: 'ok' | 'error';
  message?: string;
  /** `mfa_required`: connect again with the answer to a per-session MFA challenge. */
  code?: 'mfa_required';
  /**
   * A resume's answer: how many input payload bytes the server took from this client before
   * the connection dropped; the client sends again what it typed after that.
   */
  input_received?: number;
}

/** `w` payload from the client. */
export const resizePayloadSchema = z.object({
  event: z.literal('resize'),
  width: z.number().int(),
  height: z.number().int(),
  size: z.string().max(16).optional(),
});

/**
 * Flow-control thresholds (docs/protocol.md §5): the proxy stops reading from the SSH channel
 * while more than `pauseAbove` output bytes are unacknowledged and reads again below
 * `resumeBelow`. The window covers what a browser parses in about 20 ms, so the terminal is
 * never left waiting for the next bytes while acks travel; the gap between the two marks lets
 * the proxy send in long runs instead of a frame per ack.
 */
export const terminalFlowControl = { pauseAbove: 1024 * 1024, resumeBelow: 512 * 1024 } as const;
