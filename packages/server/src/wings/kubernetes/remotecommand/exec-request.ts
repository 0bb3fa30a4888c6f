import { z } from 'zod';

/**
 * What an exec or attach request asks for, from its query (corev1.PodExecOptions and
 * PodAttachOptions): `command` repeated once per argument, `container`, and which streams.
 */
export interface ExecRequest {
  /** Empty for attach. */
  command: string[];
  container?: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

// Kubernetes converts a query boolean by its first value: "false" and "0" are false, anything
// else present is true (runtime.Convert_Slice_string_To_bool).
const queryBoolean = z
  .array(z.string())
  .transform((values) => values.length > 0 && !['false', '0'].includes(values[0]!.toLowerCase()));

const querySchema = z.object({
  command: z.array(z.string()),
  container: z.array(z.string()).transform((values) => values[0] || undefined),
  stdin: queryBoolean,
  stdout: queryBoolean,
  stderr: queryBoolean,
  tty: queryBoolean,
});

export function parseExecRequest(query: URLSearchParams): ExecRequest {
  const request = querySchema.parse({
    command: query.getAll('command'),
    container: query.getAll('container'),
    stdin: query.getAll('stdin'),
    stdout: query.getAll('stdout'),
    stderr: query.getAll('stderr'),
    tty: query.getAll('tty'),
  });
  return withTtyRule(request);
}

/** The kubelet drops stderr under a tty: the terminal merges it into stdout. */
export function withTtyRule(request: ExecRequest): ExecRequest {
  return request.tty ? { ...request, stderr: false } : request;
}

/** The query for `request`, as kubectl writes it. */
export function execQuery(request: ExecRequest): URLSearchParams {
  const query = new URLSearchParams();
  for (const argument of request.command) query.append('command', argument);
  if (request.container) query.set('container', request.container);
  for (const flag of ['stdin', 'stdout', 'stderr', 'tty'] as const) {
    if (request[flag]) query.set(flag, 'true');
  }
  return query;
}
