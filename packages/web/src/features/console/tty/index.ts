/**
 * The terminal protocol client, free of React and the DOM: the console uses it with xterm, the
 * benchmark's headless client with Node's `ws` (docs/protocol.md).
 */
export { Emitter } from './emitter';
export {
  microtaskScheduler,
  OutputBatcher,
  type Acknowledger,
  type OutputSink,
  type Scheduler,
} from './OutputBatcher';
export { createTraceparent, isTraceparent } from './traceparent';
export { createTerminalSocket } from './workerSocket';
export {
  socketScheme,
  socketUrl,
  terminalParams,
  terminalUrl,
  type SocketOrigin,
  type TerminalParams,
} from './terminalUrl';
export {
  abnormalClosure,
  defaultAckEvery,
  goingAway,
  normalClosure,
  parseSize,
  proxyWentAway,
  sizeText,
  TtyClient,
  type TerminalSize,
  type TtyClientOptions,
  type TtyCloseInfo,
  type TtyEndedBy,
  type TtyEvents,
  type TtyState,
  type WebSocketLike,
} from './TtyClient';
