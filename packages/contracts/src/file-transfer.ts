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
  /** Reference fields for moderated sessions and approved transfers; not enforced yet. */
  moderatedSessionId: z.string().max(128).optional(),
  fileTransferRequestId: z.string().max(128).optional(),
});
export type FileTransferQuery = z.infer<typeof fileTransferQuerySchema>;
