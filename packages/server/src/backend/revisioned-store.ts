import {
  AlreadyExistsError,
  CompareFailedError,
  NotFoundError,
  type Backend,
  type Item,
} from './types.js';

/** What every stored resource has: a name, and on reads perhaps the backend's revision. */
export interface NamedResource {
  metadata: { name: string; revision?: string };
}

/**
 * How one kind is stored. `Ref` is what names one resource of the kind: its name (roles), or its
 * sub-kind and name (connectors under `/connectors/<kind>/<name>`).
 */
export interface RevisionedKind<T extends NamedResource, Ref> {
  /** Keys under this prefix, for example `/roles/`. */
  prefix: string;
  /** The key's part after the prefix. */
  keyOf: (ref: Ref) => string;
  refOf: (resource: T) => Ref;
  /**
   * Whether reads put the backend's revision into `metadata.revision` and writes leave it out, so
   * the stored value carries none: the backend's revision is the truth.
   */
  revisionInMetadata: boolean;
  /** RFC 3339: when the backend drops the record by itself (its TTL); undefined: never. */
  expiresOf?: (resource: T) => string | undefined;
  /** Whether a ref can name a resource at all; others are never looked up in the backend. */
  isRef?: (ref: Ref) => boolean;
  /** The errors callers see, in the kind's own words; a missing one lets the backend's through. */
  errors: {
    notFound: (ref: Ref) => Error;
    alreadyExists?: (ref: Ref) => Error;
    changedMeanwhile?: (ref: Ref) => Error;
  };
}

/** Reads a stored resource, with the backend's revision in `metadata.revision`. */
export function readWithRevision<T extends NamedResource>(item: Item): T {
  const resource = JSON.parse(item.value) as T;
  resource.metadata.revision = item.revision;
  return resource;
}

/**
 * The revisioned read and write of one kind over the Backend: get, list, create if absent,
 * update over a revision (compare and swap), delete. Each kind's store is a thin use of it that
 * names its key layout and its errors.
 */
export class RevisionedStore<T extends NamedResource, Ref = string> {
  constructor(
    private readonly backend: Backend,
    private readonly kind: RevisionedKind<T, Ref>,
  ) {}

  async get(ref: Ref): Promise<T | null> {
    if (this.kind.isRef && !this.kind.isRef(ref)) return null;
    const item = await this.backend.get(this.key(ref));
    return item ? this.read(item) : null;
  }

  /** Every resource under the prefix (or under `within` below it), in key order. */
  async list(within = ''): Promise<T[]> {
    const { items } = await this.backend.list({ prefix: this.kind.prefix + within });
    return items.map((item) => this.read(item));
  }

  /** Writes a resource that must not exist yet. */
  async create(resource: T): Promise<T> {
    try {
      return this.read(await this.backend.create(this.toPut(resource)));
    } catch (error) {
      const { alreadyExists } = this.kind.errors;
      if (error instanceof AlreadyExistsError && alreadyExists) {
        throw alreadyExists(this.kind.refOf(resource));
      }
      throw error;
    }
  }

  /** Writes over `revision` when given (a stale one is the kind's conflict), else unconditionally. */
  async update(resource: T, revision: string | undefined): Promise<T> {
    try {
      return this.read(await this.backend.update(this.toPut(resource), revision));
    } catch (error) {
      const ref = this.kind.refOf(resource);
      const { notFound, changedMeanwhile } = this.kind.errors;
      if (error instanceof NotFoundError) throw notFound(ref);
      if (error instanceof CompareFailedError && changedMeanwhile) throw changedMeanwhile(ref);
      throw error;
    }
  }

  async delete(ref: Ref): Promise<void> {
    try {
      if (this.kind.isRef && !this.kind.isRef(ref)) throw new NotFoundError(String(ref));
      await this.backend.delete(this.key(ref));
    } catch (error) {
      if (error instanceof NotFoundError) throw this.kind.errors.notFound(ref);
      throw error;
    }
  }

  private key(ref: Ref): string {
    return this.kind.prefix + this.kind.keyOf(ref);
  }

  private read(item: Item): T {
    return this.kind.revisionInMetadata ? readWithRevision<T>(item) : (JSON.parse(item.value) as T);
  }

  private toPut(resource: T) {
    let stored: T = resource;
    if (this.kind.revisionInMetadata) {
      const { revision: _revision, ...metadata } = resource.metadata;
      stored = { ...resource, metadata };
    }
    const expires = this.kind.expiresOf?.(resource);
    return {
      key: this.key(this.kind.refOf(resource)),
      value: JSON.stringify(stored),
      ...(expires ? { expires: new Date(expires) } : {}),
    };
  }
}
