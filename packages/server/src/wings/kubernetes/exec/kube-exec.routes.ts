import { apiPaths, kubeExecRequestSchema, type KubeExecRequest } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { accessDenied, ApiError, badParameter, notFound } from '../../../errors.js';
import type { GuardDeps, Identity } from '../../../http/request-identity.js';
import type { SessionMfa } from '../../../identity/mfa/session-mfa.js';
import {
  terminalSocketRoute,
  type TerminalRouteOptions,
} from '../../../modules/terminal/terminal-route.js';
import type { TerminalSessions } from '../../../modules/terminal/terminal-socket.js';
import type { KubeExecSessions } from './kube-exec-sessions.js';
import type { ExecAccess } from './exec-access.js';

interface KubeExecRoutesOptions {
  exec: KubeExecSessions;
  access: ExecAccess;
  guard: Pick<GuardDeps, 'sessions' | 'access'>;
  sessionMfa?: Pick<SessionMfa, 'challenge' | 'verify'>;
  clusterName: string;
  pingIntervalMs: number;
  resumes?: TerminalRouteOptions['resumes'];
  relayResume?: TerminalRouteOptions['relayResume'];
}

/**
 * Exec in the browser: the terminal WebSocket (in-band bearer, envelope frames) with a pod,
 * container and command in `params`; the session is the same as kubectl's exec with a terminal
 * (live, recorded, joinable from Active Sessions, ended by locks).
 */
export async function kubeExecRoutes(app: FastifyInstance, options: KubeExecRoutesOptions) {
  terminalSocketRoute(app, apiPaths.patterns.kubeExec, options, (request) =>
    browserExecSessions(options, request.params.name ?? '', request.ip),
  );
}

function browserExecSessions(
  options: KubeExecRoutesOptions,
  clusterName: string,
  remoteAddr: string,
): TerminalSessions<KubeExecRequest> {
  return {
    request: kubeExecRequestSchema,
    start: async (identity: Identity, params) => {
      if (params.sid) throw badParameter('join a Kubernetes session from Active Sessions');
      if (!params.namespace || !params.pod) throw badParameter('name the namespace and the pod');
      const allowed = options.access.open(identity, clusterName, params, remoteAddr);
      if ('refused' in allowed) {
        throw allowed.code === 404 ? notFound(allowed.refused) : accessDenied(allowed.refused);
      }
      const command = params.command.trim() ? params.command.trim().split(/\s+/) : ['/bin/sh'];
      try {
        return await options.exec.forBrowser(
          allowed.owner,
          allowed.target,
          command,
          params.container,
          params.term,
        );
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw new ApiError(
          'connection_problem',
          `the cluster refused the exec: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
    joinable: () => {
      throw badParameter('join a Kubernetes session from Active Sessions');
    },
    guardParty: () => () => undefined,
  };
}
