import { z } from 'zod';

/**
 * metav1.Status: what the error channel carries when a command ends (protocol v4 and later),
 * and what an API server answers a request it refuses.
 */
export const statusSchema = z.looseObject({
  kind: z.string().optional(),
  apiVersion: z.string().optional(),
  status: z.string().optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  code: z.number().optional(),
  details: z
    .looseObject({
      causes: z
        .array(
          z.looseObject({
            reason: z.string().optional(),
            message: z.string().optional(),
            field: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});
export type Status = z.infer<typeof statusSchema>;

/** The reason and cause type the kubelet uses for a command's exit code. */
export const nonZeroExitCodeReason = 'NonZeroExitCode';
export const exitCodeCauseType = 'ExitCode';

export function successStatus(): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
}

/** How a command that exited with `code` ends: Success for 0, else the kubelet's Failure. */
export function exitStatus(code: number): Status {
  if (code === 0) return successStatus();
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: exit status ${code}`,
    reason: nonZeroExitCodeReason,
    details: { causes: [{ reason: exitCodeCauseType, message: String(code) }] },
  };
}

/** A failure that is not an exit code (the command could not start, the pod is gone...). */
export function failureStatus(message: string, reason = 'InternalError', code = 500): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
}

/**
 * The exit code a status stands for, as kubectl reads it: 0 for Success, the ExitCode cause of
 * a NonZeroExitCode failure, and undefined for any other failure.
 */
export function exitCodeOf(status: Status): number | undefined {
  if (status.status === 'Success') return 0;
  if (status.reason !== nonZeroExitCodeReason) return undefined;
  const cause = status.details?.causes?.find((each) => each.reason === exitCodeCauseType);
  const code = Number(cause?.message);
  return Number.isInteger(code) ? code : undefined;
}

/** Reads a status from the error channel's bytes; an empty channel means success (as v4 does). */
export function parseStatus(bytes: Buffer): Status {
  if (bytes.length === 0) return successStatus();
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return failureStatus(`error stream protocol error: ${bytes.toString('utf8').slice(0, 200)}`);
  }
  const parsed = statusSchema.safeParse(json);
  return parsed.success ? parsed.data : failureStatus('error stream protocol error: not a Status');
}
