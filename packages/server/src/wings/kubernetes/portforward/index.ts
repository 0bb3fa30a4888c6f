export {
  acceptPortForward,
  type AcceptPortForwardOptions,
  type PortForwardServerSession,
} from './accept-port-forward.js';
export {
  dialPortForward,
  type DialPortForwardOptions,
  type PortForwardClient,
} from './dial-port-forward.js';
export { portForwardProtocolV1, tunnelProtocolV1 } from './protocol.js';
export type { ForwardedConnection } from './stream-pairs.js';
