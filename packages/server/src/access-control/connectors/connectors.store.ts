import type { Connector, ConnectorKind } from '@postern/contracts';
import {
  AlreadyExistsError,
  CompareFailedError,
  NotFoundError,
  type Backend,
  type Item,
} from '../../backend/index.js';
import { ApiError } from '../../errors.js';

/** Connectors live under `/connectors/<kind>/<name>`, secrets included (they never leave). */
export const connectorsPrefix = '/connectors/';
const keyOf = (kind: ConnectorKind, name: string) => `${connectorsPrefix}${kind}/${name}`;

export const connectorNotFound = (kind: ConnectorKind, name: string) =>
  new ApiError('not_found', `${kind} connector ${name} not found`);

/** What a writer sees when the connector moved on since it was read (the roles' wording). */
export const connectorChangedMeanwhile = (kind: ConnectorKind, name: string) =>
  new ApiError(
    'compare_failed',
    `the ${kind} connector ${name} was changed by someone else since you opened it: reload and reapply your change`,
  );

/**
 * The stored value carries no revision: the backend's revision is the truth, and reads put it
 * into `metadata.revision` (as roles do).
 */
export class ConnectorsStore {
  constructor(private readonly backend: Backend) {}

  async get(kind: ConnectorKind, name: string): Promise<Connector | null> {
    const item = await this.backend.get(keyOf(kind, name));
    return item ? connectorFromItem(item) : null;
  }

  async list(kind: ConnectorKind): Promise<Connector[]> {
    const { items } = await this.backend.list({ prefix: `${connectorsPrefix}${kind}/` });
    return items.map(connectorFromItem);
  }

  async create(connector: Connector): Promise<Connector> {
    try {
      return connectorFromItem(await this.backend.create(toPut(connector)));
    } catch (error) {
      if (error instanceof AlreadyExistsError) {
        throw new ApiError(
          'already_exists',
          `${connector.kind} connector ${connector.metadata.name} already exists`,
        );
      }
      throw error;
    }
  }

  /** Writes over `revision` when given (a stale one is a 409), else unconditionally. */
  async update(connector: Connector, revision: string | undefined): Promise<Connector> {
    try {
      return connectorFromItem(await this.backend.update(toPut(connector), revision));
    } catch (error) {
      const { kind, metadata } = connector;
      if (error instanceof NotFoundError) throw connectorNotFound(kind, metadata.name);
      if (error instanceof CompareFailedError) throw connectorChangedMeanwhile(kind, metadata.name);
      throw error;
    }
  }

  async delete(kind: ConnectorKind, name: string): Promise<void> {
    try {
      await this.backend.delete(keyOf(kind, name));
    } catch (error) {
      if (error instanceof NotFoundError) throw connectorNotFound(kind, name);
      throw error;
    }
  }
}

export function connectorFromItem(item: Item): Connector {
  const connector = JSON.parse(item.value) as Connector;
  connector.metadata.revision = item.revision;
  return connector;
}

function toPut(connector: Connector) {
  const { revision: _revision, ...metadata } = connector.metadata;
  return {
    key: keyOf(connector.kind, connector.metadata.name),
    value: JSON.stringify({ ...connector, metadata }),
  };
}
