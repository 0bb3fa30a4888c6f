export { TunnelRegistry, type ControlChannel } from './tunnel-registry.js';
export { tunnelRoutes, type TunnelRoutesOptions } from './tunnel.routes.js';
export type { HostCertificateRequest } from './certificate-watch.js';
