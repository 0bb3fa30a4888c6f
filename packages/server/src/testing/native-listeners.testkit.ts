import { TrustedProxies } from '../net/proxy-protocol.js';
import { listenerIdentity } from '../wings/databases/listener-identity.js';
import { LeafMysqlThreads } from '../wings/databases/mysql/my-leaf.js';
import { startMysqlListener } from '../wings/databases/mysql/my-listener.js';
import type { NativeListener, NativeListenerDeps } from '../wings/databases/native-listener.js';
import { LeafCancelKeys } from '../wings/databases/postgres/pg-leaf.js';
import { startPostgresListener } from '../wings/databases/postgres/pg-listener.js';
import type { TestApp } from './app-harness.testkit.js';

/** What both native listeners take from an app, as the wing gives it (peers included). */
async function listenerDeps(app: TestApp): Promise<NativeListenerDeps> {
  const { services } = app;
  return {
    accessCa: await services.dbAccessCa(),
    serverNames: ['localhost', '127.0.0.1'],
    databases: services.databases,
    identify: listenerIdentity(services.access, services.lockWatcher),
    sessions: services.dbSessions,
    draining: () => false,
    trustedProxies: new TrustedProxies([]),
  };
}

const loopback = { host: '127.0.0.1', port: 0 };

/**
 * The app's native listener for `protocol` on loopback, made as the wing makes it: its engine
 * asks the cluster's other proxies for cancels, and it takes a trusted leaf's routes.
 */
export async function nativeListenerOf(
  app: TestApp,
  protocol: 'postgres' | 'mysql',
): Promise<NativeListener> {
  const { services } = app;
  const common = { ca: await services.dbClientCa(), dial: services.dialDatabase };
  const peers = services.peerCancels;
  const reach = () => app.context.leafReach.side;
  return protocol === 'postgres'
    ? startPostgresListener(
        {
          ...(await listenerDeps(app)),
          engine: { ...common, cancelKeys: services.pgCancelKeys, peers },
          leaf: { reach, cancels: new LeafCancelKeys() },
        },
        loopback,
      )
    : startMysqlListener(
        {
          ...(await listenerDeps(app)),
          engine: { ...common, threads: services.mysqlThreads, peers },
          leaf: { reach, threads: new LeafMysqlThreads() },
        },
        loopback,
      );
}
