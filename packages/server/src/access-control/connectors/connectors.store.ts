import type { Connector, ConnectorKind } from '@postern/contracts';
import { readWithRevision, RevisionedStore, type Backend, type Item } from '../../backend/index.js';
import { ApiError } from '../../errors.js';

/** Connectors live under `/connectors/<kind>/<name>`, secrets included (they never leave). */
export const connectorsPrefix = '/connectors/';

/** What names one connector: its kind and its name. */
interface ConnectorRef {
  kind: ConnectorKind;
  name: string;
}

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
  private readonly store: RevisionedStore<Connector, ConnectorRef>;

  constructor(backend: Backend) {
    this.store = new RevisionedStore(backend, {
      prefix: connectorsPrefix,
      keyOf: ({ kind, name }) => `${kind}/${name}`,
      refOf: (connector) => ({ kind: connector.kind, name: connector.metadata.name }),
      revisionInMetadata: true,
      errors: {
        notFound: ({ kind, name }) => connectorNotFound(kind, name),
        alreadyExists: ({ kind, name }) =>
          new ApiError('already_exists', `${kind} connector ${name} already exists`),
        changedMeanwhile: ({ kind, name }) => connectorChangedMeanwhile(kind, name),
      },
    });
  }

  get(kind: ConnectorKind, name: string): Promise<Connector | null> {
    return this.store.get({ kind, name });
  }

  list(kind: ConnectorKind): Promise<Connector[]> {
    return this.store.list(`${kind}/`);
  }

  create(connector: Connector): Promise<Connector> {
    return this.store.create(connector);
  }

  /** Writes over `revision` when given (a stale one is a 409), else unconditionally. */
  update(connector: Connector, revision: string | undefined): Promise<Connector> {
    return this.store.update(connector, revision);
  }

  delete(kind: ConnectorKind, name: string): Promise<void> {
    return this.store.delete({ kind, name });
  }
}

export const connectorFromItem = (item: Item): Connector => readWithRevision<Connector>(item);
