export { TunnelRegistry, type ControlChannel, type TunnelDialer } from './tunnel-registry.js';
export { ProxyRegistry, ProxyIdTakenError } from './proxy-registry.js';
export { tunnelRoutes, type TunnelRoutesOptions } from './tunnel.routes.js';
export type { HostCertificateRequest } from './certificate-watch.js';
export type { AgentHeartbeats } from './control-socket.js';
export { AgentReports } from './agent-reports.js';
export type { AgentAppReport } from './tunnel-protocol.js';
