import type { Connector } from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import { connectorFromItem, connectorsPrefix } from './connectors.store.js';

/** Every connector in memory (named `<kind>/<name>`), kept current by the backend's watch. */
export function watchConnectors(
  backend: Backend,
  onError: (error: unknown) => void,
): WatchedCache<Connector> {
  return new WatchedCache(backend, { prefix: connectorsPrefix, parse: connectorFromItem, onError });
}
