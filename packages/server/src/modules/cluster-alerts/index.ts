import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import type { AuditStore } from '../audit/index.js';
import { ClusterAlertsService } from './cluster-alerts.service.js';
import { ClusterAlertsStore } from './cluster-alerts.store.js';

export { clusterAlertsRoutes } from './cluster-alerts.routes.js';
export { ClusterAlertsService, type NewClusterAlert } from './cluster-alerts.service.js';

export const buildClusterAlerts = (deps: { backend: Backend; audit: AuditStore; now: Clock }) =>
  new ClusterAlertsService(new ClusterAlertsStore(deps.backend), deps.audit, deps.now);
