export { NodeService, type NodeServiceOptions } from './node-service.js';
export type { CertifiedIdentity } from './authenticate.js';
