export { acceptSpdyUpgrade, streamProtocolHeader } from './accept-spdy.js';
export { acceptWebSocket } from './accept-websocket.js';
export { UpgradeFailedError, type DialOptions, type TlsClientOptions } from './dial-options.js';
export { dialSpdy } from './dial-spdy.js';
export { dialWebSocket } from './dial-websocket.js';
export { isSpdyUpgrade, isWebSocketUpgrade } from './negotiate.js';
export { refuseUpgrade, UpgradeRefusedError } from './raw-response.js';
export {
  exitCodeOf,
  exitStatus,
  failureStatus,
  parseStatus,
  statusSchema,
  successStatus,
  type Status,
} from './status.js';
