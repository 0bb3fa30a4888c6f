import multipart from '@fastify/multipart';
import { apiPaths, fileTransferQuerySchema, formDataRequiredMessage } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { resolveClusterId } from '../../../cluster-context.js';
import { ApiError, badParameter, notAuthenticated } from '../../../errors.js';
import { parseInput } from '../../../http/parse-input.js';
import type { Identity } from '../../../http/request-identity.js';
import {
  rootMfaHeader,
  SessionMfa,
  sessionMfaNeeded,
  webSessionMfaSubject,
} from '../../../identity/mfa/session-mfa.js';
import type { SessionMfaGrants } from '../../../identity/mfa/session-mfa-grants.js';
import type { FileTransferService, TransferRequest } from './file-transfer.service.js';

interface FileTransferRoutesOptions {
  transfers: FileTransferService;
  clusterName: string;
  maxBytes: number;
  /** Checks passed for `files:<serverId>` (`POST mfa/session/verify`), for require_session_mfa. */
  sessionMfaGrants: Pick<SessionMfaGrants, 'find'>;
  /** Checks a trusted root's word for its user (SessionMfa with the root users' checks). */
  sessionMfa: Pick<SessionMfa, 'verify'>;
}

type TransferRoute = FastifyRequest<{
  Params: { clusterId: string; serverId: string; login: string };
  Querystring: unknown;
}>;

/** Who may use a login on a server is the service's question (as for the terminal). */
const signedIn = { config: { access: 'authenticated' } } as const;

/**
 * Download (GET) and upload (POST, multipart/form-data) of one file on a server, as a login
 * (spec §7 `nodes/{serverId}/{login}/scp`; docs/file-transfer.md). Bodies stream: this plugin
 * is the only place that accepts multipart, and it never reads a body it does not want.
 */
export async function fileTransferRoutes(app: FastifyInstance, options: FileTransferRoutesOptions) {
  const { transfers, clusterName } = options;
  // Encapsulated: JSON and every other body are left unparsed here, so a wrong body type gets
  // the spec's own answer below instead of a parser's 415.
  app.removeAllContentTypeParsers();
  await app.register(multipart, { limits: { files: 1, fields: 10, parts: 11 } });
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  /**
   * require_session_mfa: a transfer starts within a minute of a check passed for this server in
   * this web session (the console asks for one before the files it was given). A trusted root's
   * user passes theirs on the root, which vouches for it on the call it forwards (`rootWord`).
   */
  const checkedIdentity = async (
    identity: Identity,
    serverId: string,
    rootWord: string | undefined,
  ): Promise<Identity> => {
    const resource = `files:${serverId}`;
    if (!SessionMfa.requiredFor(identity)) return identity;
    const checked: Identity = { ...identity, mfaVerified: true };
    const grant = await options.sessionMfaGrants.find(identity.session.id, resource);
    if (grant) {
      // The device that answered the check: a lock on it refuses and cuts off the transfers.
      if (grant.device) checked.sessionMfaDevice = grant.device;
      return checked;
    }
    if (rootWord) {
      const subject = webSessionMfaSubject(identity.session.id, resource);
      await options.sessionMfa.verify(
        identity.user,
        subject,
        { root_assertion: rootWord },
        undefined,
      );
      return checked;
    }
    throw new ApiError('mfa_required', sessionMfaNeeded('this server'));
  };

  const transferRequest = async (request: TransferRoute): Promise<TransferRequest> => {
    resolveClusterId(request.params.clusterId, clusterName);
    if (!request.identity) throw notAuthenticated();
    const query = parseInput(fileTransferQuerySchema, request.query);
    return {
      identity: await checkedIdentity(
        request.identity,
        request.params.serverId,
        headerText(request.headers[rootMfaHeader]),
      ),
      serverId: request.params.serverId,
      login: request.params.login,
      location: query.location,
      ...(query.filename ? { filename: query.filename } : {}),
      ...(query.moderatedSessionId ? { moderatedSessionId: query.moderatedSessionId } : {}),
      ...(query.fileTransferRequestId
        ? { fileTransferRequestId: query.fileTransferRequestId }
        : {}),
      remoteAddr: request.ip,
    };
  };

  app.get(
    apiPaths.patterns.fileTransfer,
    // A HEAD would dial the node and audit a download that never happens.
    { ...signedIn, exposeHeadRoute: false },
    async (request: TransferRoute, reply) => {
      const download = await transfers.download(await transferRequest(request));
      return reply
        .type('application/octet-stream')
        .header('content-length', download.size)
        .header('content-disposition', attachment(download.filename))
        .header('cache-control', 'no-store')
        .send(download.stream);
    },
  );

  app.post(apiPaths.patterns.fileTransfer, signedIn, async (request: TransferRoute, reply) => {
    const target = await transferRequest(request);
    if (!request.isMultipart()) throw badParameter(formDataRequiredMessage);
    const declared = Number(request.headers['content-length']);
    // One byte over the limit is enough for the service to see that the file is too large.
    const fileLimits = { limits: { fileSize: options.maxBytes + 1, files: 1 } };
    try {
      const result = await transfers.upload(
        target,
        Number.isFinite(declared) ? declared : undefined,
        async () => {
          const part = await request.file(fileLimits);
          return part && { stream: part.file, filename: part.filename };
        },
      );
      return { path: result.path, bytes: result.bytes };
    } catch (error) {
      // The rest of the body is not read: close the connection once the error is out.
      reply.header('connection', 'close');
      throw error;
    }
  });
}

/** RFC 6266: an ASCII fallback name, and the exact name in UTF-8 (RFC 8187). */
export function attachment(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

const headerText = (value: string | string[] | undefined) =>
  typeof value === 'string' ? value : undefined;
