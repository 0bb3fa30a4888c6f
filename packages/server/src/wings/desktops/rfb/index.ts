export { startVncRelay, type VncRelayOptions, type VncSession } from './vnc-relay.js';
export { type FramebufferSource, type Rect } from './framebuffer.js';
