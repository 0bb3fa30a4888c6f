import { apiPaths, kubeExecRequestSchema, type KubeExecRequest } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../../cluster-context.js';
import { accessDenied, ApiError, badParameter, notFound } from '../../../errors.js';
import {
  identifyByCredentials,
  sessionCookieName,
  type GuardDeps,
  type Identity,
} from '../../../http/request-identity.js';
import { sameOrigin } from '../../../http/same-origin.js';
import type { TerminalSessions } from '../../../modules/terminal/terminal-socket.js';
import { serveTerminalSocket } from '../../../modules/terminal/terminal-socket.js';
import type { KubeExecSessions } from './kube-exec-sessions.js';
import type { ExecAccess } from './exec-access.js';

interface KubeExecRoutesOptions {
  exec: KubeExecSessions;
  access: ExecAccess;
  guard: Pick<GuardDeps, 'sessions' | 'access'>;
  clusterName: string;
  pingIntervalMs: number;
}

type ExecSocketRequest = {
  Params: { clusterId: string; name: string };
  Querystring: { params?: string };
};

/**
 * Exec in the browser: the terminal WebSocket (in-band bearer, envelope frames) with a pod,
 * container and command in `params`; the session is the same as kubectl's exec with a terminal
 * (live, recorded, joinable from Active Sessions, ended by locks).
 */
export async function kubeExecRoutes(app: FastifyInstance, options: KubeExecRoutesOptions) {
  app.get<ExecSocketRequest>(
    apiPaths.patterns.kubeExec,
    {
      websocket: true,
      config: { access: 'public' },
      preValidation: async (request) => {
        resolveClusterId(request.params.clusterId, options.clusterName);
        if (!sameOrigin(request)) throw accessDenied('access denied: foreign origin');
      },
    },
    (socket, request) => {
      const cookie = request.cookies[sessionCookieName];
      serveTerminalSocket(socket, {
        sessions: browserExecSessions(options, request.params.name, request.ip),
        authenticate: (bearer) => identifyByCredentials(options.guard, cookie, bearer),
        params: request.query.params,
        pingIntervalMs: options.pingIntervalMs,
        log: (error, message) => request.log.error({ err: error }, message),
      });
    },
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
