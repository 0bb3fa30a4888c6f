import {
  connectorItemId,
  secretPlaceholder,
  ssoPaths,
  type AuditCode,
  type AuthProvider,
  type Connector,
  type ConnectorItem,
  type ConnectorKind,
} from '@postern/contracts';
import { ApiError } from '../../errors.js';
import { assertMay, visible, type Actor } from '../access/actor.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit } from '../../modules/audit/emit.js';
import { RoleValidationError } from '../rbac/role.yaml.js';
import { issueAt } from '../roles/roles.service.js';
import { connectorToYaml, mapSecrets, parseConnectorYaml, secretsOf } from './connector.yaml.js';
import { connectorNotFound, type ConnectorsStore } from './connectors.store.js';

/**
 * The catalogue has "created" and "deleted" per kind; a save over an existing one is "created",
 * and a save refused (a stale revision) is "created" too, as a warning with `success: false`.
 */
const auditCodes: Record<
  ConnectorKind,
  { created: AuditCode; deleted: AuditCode; refused: AuditCode }
> = {
  github: { created: 'T8000I', deleted: 'T8001I', refused: 'TPOS040W' },
  oidc: { created: 'T8100I', deleted: 'T8101I', refused: 'TPOS041W' },
  saml: { created: 'T8200I', deleted: 'T8201I', refused: 'TPOS042W' },
};

/**
 * Auth connectors as YAML resources (spec §7 `github/{name?}`, same shape for oidc and saml).
 * Secrets are kept in storage and shown as the placeholder; saving the placeholder back keeps
 * the stored secret, so editing a connector never needs its secret typed again.
 */
export class ConnectorsService {
  constructor(
    private readonly store: ConnectorsStore,
    private readonly audit: AuditStore,
  ) {}

  async list(kind: ConnectorKind, actor: Actor): Promise<Connector[]> {
    return visible(actor, kind, await this.store.list(kind));
  }

  /** The connector with its secrets, for the sign-in flows only. */
  async forLogin(kind: ConnectorKind, name: string): Promise<Connector | null> {
    return this.store.get(kind, name);
  }

  async create(kind: ConnectorKind, content: string, actor: Actor): Promise<Connector> {
    const connector = withoutRevision(parseConnectorYaml(kind, content));
    assertMay(actor, kind, 'create', connector, connector.metadata.name);
    for (const [path, value] of secretsOf(connector)) {
      if (value === secretPlaceholder) throw secretMissing(content, path);
    }
    const saved = await this.store.create(connector);
    await this.emit(kind, 'created', connector.metadata.name, actor);
    return saved;
  }

  /**
   * `PUT /{kind}/{name}`: replaces the connector over the revision in `metadata.revision`, which
   * the connector's YAML carries as it was read; a placeholder keeps the stored secret. A missing
   * revision is refused rather than read as "overwrite", as for roles: a blind write is what
   * loses someone else's change. Overwriting on purpose is `postern create -f --force` (`put`).
   */
  async update(
    kind: ConnectorKind,
    name: string,
    content: string,
    actor: Actor,
  ): Promise<Connector> {
    const parsed = parseConnectorYaml(kind, content);
    if (parsed.metadata.name !== name) {
      throw new RoleValidationError([
        {
          path: 'metadata.name',
          line: lineOfField(content, 'name'),
          message: `is '${parsed.metadata.name}' but the connector being saved is '${name}': a connector cannot be renamed`,
        },
      ]);
    }
    const revision = parsed.metadata.revision;
    if (!revision) {
      throw issueAt(
        content,
        'metadata.revision',
        'is missing: save the connector as it was loaded (its YAML carries the revision), or reload it and reapply your change',
      );
    }
    return this.save(kind, parsed, content, actor, revision);
  }

  /** `postern create -f --force`: creates the connector, or overwrites it whatever its revision. */
  async put(
    kind: ConnectorKind,
    content: string,
    actor: Actor,
  ): Promise<{ connector: Connector; created: boolean }> {
    const parsed = parseConnectorYaml(kind, content);
    if (!(await this.store.get(kind, parsed.metadata.name))) {
      return { connector: await this.create(kind, content, actor), created: true };
    }
    return { connector: await this.save(kind, parsed, content, actor, undefined), created: false };
  }

  /** Saves over an existing connector (over `revision` when given), keeping placeholder secrets. */
  private async save(
    kind: ConnectorKind,
    parsed: Connector,
    content: string,
    actor: Actor,
    revision: string | undefined,
  ): Promise<Connector> {
    const name = parsed.metadata.name;
    const current = await this.store.get(kind, name);
    if (!current) throw connectorNotFound(kind, name);
    assertMay(actor, kind, 'update', current, name);
    const stored = secretsOf(current);
    const connector = mapSecrets(withoutRevision(parsed), (path, value) => {
      if (value !== secretPlaceholder) return value;
      const kept = stored.get(path);
      if (kept === undefined) throw secretMissing(content, path);
      return kept;
    });
    const saved = await this.store.update(connector, revision).catch(async (error: unknown) => {
      // Of two people saving the same connector the second is refused (409); that is audited
      // as the accepted save is.
      if (error instanceof ApiError) {
        await emitAudit(this.audit, auditCodes[kind].refused, {
          user: actor.name,
          name,
          success: false,
          error: error.message,
        });
      }
      throw error;
    });
    await this.emit(kind, 'created', name, actor);
    return saved;
  }

  async remove(kind: ConnectorKind, name: string, actor: Actor): Promise<void> {
    const current = await this.store.get(kind, name);
    if (!current) throw connectorNotFound(kind, name);
    assertMay(actor, kind, 'delete', current, name);
    await this.store.delete(kind, name);
    await this.emit(kind, 'deleted', name, actor);
  }

  private async emit(kind: ConnectorKind, what: 'created' | 'deleted', name: string, actor: Actor) {
    await emitAudit(this.audit, auditCodes[kind][what], { user: actor.name, name });
  }
}

/**
 * The Auth Connectors screen's item: YAML with secrets as the placeholder, and with the revision
 * the editor must send back.
 */
export function connectorItem(connector: Connector): ConnectorItem {
  const name = connector.metadata.name;
  return {
    id: connectorItemId(connector.kind, name),
    kind: connector.kind,
    name,
    ...(connector.spec.display ? { displayName: connector.spec.display } : {}),
    content: connectorToYaml(connector),
  };
}

/** The login page's buttons (`auth.providers`): one per connector, sorted by kind then name. */
export function authProviders(connectors: readonly Connector[]): AuthProvider[] {
  return [...connectors]
    .sort((a, b) =>
      a.kind === b.kind
        ? a.metadata.name.localeCompare(b.metadata.name)
        : a.kind.localeCompare(b.kind),
    )
    .map((connector) => ({
      name: connector.metadata.name,
      displayName: connector.spec.display ?? connector.metadata.name,
      type: connector.kind,
      url: `${ssoPaths.loginWeb(connector.kind)}?connector_id=${encodeURIComponent(connector.metadata.name)}&redirect_url=`,
    }));
}

function withoutRevision<T extends Connector>(connector: T): T {
  const { revision: _revision, ...metadata } = connector.metadata;
  return { ...connector, metadata };
}

function secretMissing(content: string, path: string): RoleValidationError {
  const field = path.split('.').pop() ?? '';
  return new RoleValidationError([
    {
      path,
      line: lineOfField(content, field),
      message: `is the placeholder, but no ${field} is stored: write the secret itself`,
    },
  ]);
}

function lineOfField(content: string, field: string): number {
  const at = content.split('\n').findIndex((line) => new RegExp(`^\\s*${field}\\s*:`).test(line));
  return at >= 0 ? at + 1 : 1;
}
