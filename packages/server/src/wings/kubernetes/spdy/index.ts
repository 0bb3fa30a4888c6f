export { spdy3Dictionary } from './dictionary.js';
export { decodeFrame } from './frame-decode.js';
export { encodeFrame, goAwayStatus, rstStatus, SpdyProtocolError, type Frame } from './frames.js';
export {
  decodeHeaderBlock,
  encodeHeaderBlock,
  headerValue,
  HeaderCompressor,
  HeaderDecompressor,
  type SpdyHeaders,
  type SpdyHeadersInit,
} from './header-compression.js';
export { SpdyConnection, type SpdyConnectionOptions } from './spdy-connection.js';
export { SpdyStream } from './spdy-stream.js';
