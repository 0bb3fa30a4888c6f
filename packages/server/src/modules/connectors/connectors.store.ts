import type { Connector, ConnectorKind } from '@postern/contracts';
import { AlreadyExistsError, NotFoundError, type Backend, type Item } from '../../backend/index.js';
import { ApiError } from '../../errors.js';

/** Connectors live under `/connectors/<kind>/<name>`, secrets included (they never leave). */
export const connectorsPrefix = '/connectors/';
const keyOf = (kind: ConnectorKind, name: string) => `${connectorsPrefix}${kind}/${name}`;

export const connectorNotFound = (kind: ConnectorKind, name: string) =>
  new ApiError('not_found', `${kind} connector ${name} not found`);

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

  async create(connector: Connector): Promise<void> {
    try {
      await this.backend.create(toPut(connector));
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

  async update(connector: Connector): Promise<void> {
    try {
      await this.backend.update(toPut(connector));
    } catch (error) {
      if (error instanceof NotFoundError) {
        throw connectorNotFound(connector.kind, connector.metadata.name);
      }
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

export const connectorFromItem = (item: Item) => JSON.parse(item.value) as Connector;

const toPut = (connector: Connector) => ({
  key: keyOf(connector.kind, connector.metadata.name),
  value: JSON.stringify(connector),
});
