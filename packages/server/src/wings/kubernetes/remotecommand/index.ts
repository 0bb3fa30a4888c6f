export { acceptExec, type AcceptExecOptions } from './accept-exec.js';
export { dialExec, type DialExecOptions } from './dial-exec.js';
export { execQuery, parseExecRequest, type ExecRequest } from './exec-request.js';
export {
  channel,
  remoteCommandProtocols,
  streamProtocolV4,
  streamProtocolV5,
  streamType,
  type RemoteCommandProtocol,
  type TerminalSize,
} from './protocol.js';
export type { ExecClientSession, ExecServerSession, RemoteCommandTransport } from './session.js';
export { serveExecOverSpdy } from './spdy-server.js';
export { serveExecOverWebSocket } from './ws-server.js';
export {
  exitCodeOf,
  exitStatus,
  failureStatus,
  successStatus,
  type Status,
} from '../httpstream/status.js';
