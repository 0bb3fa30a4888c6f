import type {
  ConnectionDiagnostic,
  ConnectionDiagnosticRequest,
  ConnectionTrace,
} from '@postern/contracts';
import { randomUUID } from 'node:crypto';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { badParameter } from '../../errors.js';

/** Who asks for the test: it runs with their roles, as their own connection would. */
export interface DiagnosticCaller {
  user: string;
  roleSet: RoleSet;
  /** The roles of the caller's session, which a session a test opens is judged by. */
  sessionRoles: readonly string[];
}

/**
 * One kind's connection test: the steps it took, in order, stopping at the first that failed.
 * It throws an ApiError for a request it cannot run (a missing field, an unknown resource).
 */
export type ConnectionTest = (
  request: ConnectionDiagnosticRequest,
  caller: DiagnosticCaller,
) => Promise<ConnectionTrace[]>;

/**
 * Discover's connection test (`POST …/diagnostics/connections`), one per resource kind: each wing
 * adds the test of the kind it serves (`ctx.connectionDiagnostics.add('db', …)`), as it adds
 * what agents report; the route here answers for all of them.
 */
export class ConnectionDiagnostics {
  readonly #tests = new Map<string, ConnectionTest>();

  add(kind: string, test: ConnectionTest): void {
    if (this.#tests.has(kind)) throw new Error(`a connection test for ${kind} is added twice`);
    this.#tests.set(kind, test);
  }

  /** The kinds that have a test. */
  get kinds(): string[] {
    return [...this.#tests.keys()].sort();
  }

  async run(
    request: ConnectionDiagnosticRequest,
    caller: DiagnosticCaller,
  ): Promise<ConnectionDiagnostic> {
    const test = this.#tests.get(request.resource_kind);
    if (!test) {
      const kinds = this.kinds;
      throw badParameter(
        `resource_kind: this proxy has no connection test for ${request.resource_kind}` +
          (kinds.length > 0 ? `; it tests ${kinds.join(', ')}` : ''),
      );
    }
    const traces = await test(request, caller);
    const failed = traces.find((trace) => trace.status === 'failed');
    return {
      id: randomUUID(),
      success: !failed,
      message: failed ? failed.error : 'success',
      traces,
    };
  }
}
