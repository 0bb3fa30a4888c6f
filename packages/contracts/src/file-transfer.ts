import { z } from 'zod';

/**
 * File transfer from the web terminal (spec §7: `nodes/{serverId}/{login}/scp`). GET downloads
 * the file at `location`; POST uploads a multipart/form-data body's file to `location`, which is
 * a directory (the file lands at location/filename) or a file path. A relative location starts
 * at the login's home directory, and `~` or `~/…` names it too.
 */

/** The answer to a POST whose body is not multipart/form-data (spec §5). */
export const formDataRequiredMessage = 'data for body is not a type of FormData';

/** Said by the server (413) and by the console, which checks before sending. */
export const fileTooLargeMessage = (maxBytes: number) =>
  `the file is larger than the limit of ${maxBytes} bytes`;

/** Longest remote path accepted: PATH_MAX on Linux. */
export const maxRemotePathLength = 4096;

const noNul = (value: string) => !value.includes('\0');

export const remoteLocationSchema = z
  .string()
  .trim()
  .min(1, 'location is required')
  .max(maxRemotePathLength, `location is longer than ${maxRemotePathLength} characters`)
  .refine(noNul, 'location must not hold NUL bytes');

/** One path segment: no slash, not `.` or `..`, no NUL, at most NAME_MAX bytes. */
export const remoteFilenameSchema = z
  .string()
  .min(1, 'filename is required')
  .refine(
    (value) => new TextEncoder().encode(value).length <= 255,
    'filename is longer than 255 bytes',
  )
  .refine(noNul, 'filename must not hold NUL bytes')
  .refine((value) => !value.includes('/'), 'filename must not hold "/"')
  .refine((value) => value !== '.' && value !== '..', 'filename must not be "." or ".."');

export const fileTransferQuerySchema = z.object({
  location: remoteLocationSchema,
  /** The name the browser saves a download under, or the uploaded file's name. */
  filename: remoteFilenameSchema.optional(),
  /**
   * A moderated user's transfer: the session its moderators approved it in, and the request they
   * approved (`file_transfer_request_approve` with `approved: true`). Used once.
   */
  moderatedSessionId: z.string().max(128).optional(),
  fileTransferRequestId: z.string().max(128).optional(),
});
export type FileTransferQuery = z.infer<typeof fileTransferQuerySchema>;

/**
 * Moderated file transfers (docs/file-transfer.md): in a moderated session, its owner asks on the
 * terminal socket (`f`); every participant hears of it as an `a` event, and the others approve or
 * deny it (`t`). Once the approvers meet the session's moderation policy, the owner's console
 * makes the transfer with `moderatedSessionId` and `fileTransferRequestId`.
 */
export const fileTransferRequestFrameSchema = z.object({
  event: z.literal('file_transfer_request'),
  download: z.boolean(),
  location: remoteLocationSchema,
  filename: remoteFilenameSchema.optional(),
  /**
   * The asker's own name for the request, echoed in every event about it: the console pairs
   * the server's request id with its transfer by it, also when events are replayed after a
   * reconnect. Not Postern's; another client may leave it out.
   */
  clientRequestId: z.string().min(1).max(64).optional(),
});
export type FileTransferRequestFrame = z.infer<typeof fileTransferRequestFrameSchema>;

/**
 * A decision by anyone but the owner approves or denies; the owner may only deny its own
 * request, which withdraws it (its transfer was cancelled).
 */
export const fileTransferDecisionFrameSchema = z.object({
  event: z.literal('file_transfer_decision'),
  requestId: z.string().min(1).max(128),
  approved: z.boolean(),
});
export type FileTransferDecisionFrame = z.infer<typeof fileTransferDecisionFrameSchema>;

/**
 * The `e` frame's text when the server refuses a request (`…request refused: <reason>`) or a
 * decision (`…decision refused: <reason>`); the console tells them from other errors by it.
 */
export const fileTransferRequestRefused = 'file transfer request refused: ';

/** How many of a session's requests may wait for a decision at once (the console queues more). */
export const maxWaitingFileTransferRequests = 8;
export const fileTransferDecisionRefused = 'file transfer decision refused: ';

/**
 * The `a` events of a request's life, sent to every participant. A participant who joins later
 * is sent the requests still waiting, and one who resumes a dropped connection the last event
 * of each request it may have missed.
 */
export const fileTransferRequestEventSchema = z.object({
  event: z.enum([
    'file_transfer_request',
    'file_transfer_request_approve',
    'file_transfer_request_deny',
  ]),
  requestId: z.string(),
  /** The session's owner, who asked. */
  requester: z.string(),
  location: z.string(),
  filename: z.string().optional(),
  download: z.boolean(),
  /** Who approved it so far. */
  approvers: z.array(z.string()),
  /** On an approval: the approvers now meet the policy, and the transfer may be made. */
  approved: z.boolean().optional(),
  /** On a denial: who denied it. */
  deniedBy: z.string().optional(),
  /** On a denial: the owner withdrew it (`deniedBy` is the owner). */
  withdrawn: z.boolean().optional(),
  /** The asker's `clientRequestId`, when it gave one. */
  clientRequestId: z.string().optional(),
});
export type FileTransferRequestEvent = z.infer<typeof fileTransferRequestEventSchema>;
