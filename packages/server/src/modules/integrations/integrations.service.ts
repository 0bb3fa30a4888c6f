import type { IntegrationJson, IntegrationType } from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { badParameter } from '../../errors.js';
import { assertMay, visible, type Actor } from '../../access-control/access/actor.js';
import type { AuditStore } from '../audit/index.js';
import { emitAudit } from '../audit/emit.js';
import { DeliveryQueue, type DeliveryOptions } from './delivery.js';
import { describeFailure } from './failure.js';
import { sendEmail } from './formats/email.js';
import { sendMattermost } from './formats/mattermost.js';
import { sendSlack } from './formats/slack.js';
import { subjectOf } from './formats/summary.js';
import type { Outgoing, Sender } from './formats/types.js';
import { sendWebhook } from './formats/webhook.js';
import {
  integrationJson,
  openIntegration,
  targetOf,
  toResource,
  type IntegrationSpec,
} from './integration-record.js';
import {
  integrationNotFound,
  unusedStatus,
  type IntegrationResource,
  type IntegrationsStore,
  type IntegrationStatusStore,
} from './integrations.store.js';
import type { AccessRequestNotice, RequestNotifier } from './notice.js';
import type { SecretBox } from './secret-box.js';
import { TargetRefusedError, type UrlGuard } from './url-guard.js';

const senders: Record<IntegrationType, Sender> = {
  webhook: sendWebhook,
  slack: sendSlack,
  mattermost: sendMattermost,
  email: sendEmail,
};

export interface IntegrationsServiceDeps {
  store: IntegrationsStore;
  status: IntegrationStatusStore;
  box: SecretBox;
  guard: UrlGuard;
  audit: AuditStore;
  now: Clock;
  /** A user's e-mail address (their `email` trait, or the name when it is one), if any. */
  emailOf: (user: string) => string | undefined;
  /** The console's address, for the link of a test message. */
  consoleUrl: () => string;
  /** Told about failures nobody waits for (listing integrations for a notice, status writes). */
  onError: (error: unknown) => void;
  delivery?: DeliveryOptions;
}

/**
 * Integrations that tell reviewers about access requests: who may manage them, their audit
 * events, and the notifier the access-request service calls. `notify` only queues: the
 * request's caller never waits for a chat or mail server (delivery.ts does the sending).
 */
export class IntegrationsService implements RequestNotifier {
  readonly queue: DeliveryQueue;

  constructor(private readonly deps: IntegrationsServiceDeps) {
    const { status, audit, now, onError } = deps;
    this.queue = new DeliveryQueue({ status, audit, now, onError }, deps.delivery);
  }

  async list(actor: Actor): Promise<IntegrationJson[]> {
    const [all, statuses] = await Promise.all([this.deps.store.list(), this.deps.status.all()]);
    return visible(actor, 'integration', all).map((integration) =>
      this.json(integration, statuses.get(integration.metadata.name)),
    );
  }

  async get(name: string, actor: Actor): Promise<IntegrationJson> {
    const integration = await this.find(name);
    assertMay(actor, 'integration', 'read', integration, name);
    return this.json(integration, await this.deps.status.get(name));
  }

  async create(spec: IntegrationSpec, actor: Actor): Promise<IntegrationJson> {
    await this.checkTarget(spec);
    const created = new Date(this.deps.now()).toISOString();
    const resource = await toResource(spec, null, this.deps.box, {
      createdBy: actor.name,
      created,
    });
    assertMay(actor, 'integration', 'create', resource, spec.name);
    const saved = await this.deps.store.create(resource);
    await this.audited('TIG01I', actor, saved);
    return this.json(saved);
  }

  /** Replaces the settings; secrets left out keep their stored values. Name and type stay. */
  async update(name: string, spec: IntegrationSpec, actor: Actor): Promise<IntegrationJson> {
    if (spec.name !== name) throw badParameter('name: cannot be changed (create a new one)');
    const previous = await this.find(name);
    assertMay(actor, 'integration', 'update', previous, name);
    if (spec.type !== previous.spec.type) {
      throw badParameter(`type: cannot change from ${previous.spec.type} (create a new one)`);
    }
    await this.checkTarget(spec);
    const { createdBy, created } = previous.spec;
    const resource = await toResource(spec, previous, this.deps.box, { createdBy, created });
    // Over the revision read: a concurrent edit is a conflict, not a silent overwrite.
    const saved = await this.deps.store.update(resource, previous.metadata.revision);
    await this.audited('TIG02I', actor, saved);
    return this.json(saved, await this.deps.status.get(name));
  }

  async remove(name: string, actor: Actor): Promise<void> {
    const integration = await this.find(name);
    assertMay(actor, 'integration', 'delete', integration, name);
    await this.deps.store.delete(name);
    await this.deps.status.delete(name);
    await this.audited('TIG03I', actor, integration);
  }

  /** Queues the notice for every integration and returns at once; never throws. */
  notify(notice: AccessRequestNotice): void {
    const message: Outgoing = { kind: 'notice', notice };
    this.deps.store.list().then(
      (all) => {
        for (const integration of all) this.enqueue(integration, message);
      },
      (error: unknown) => this.deps.onError(error),
    );
  }

  /** Sends a test message now; a failure is a 400 naming what the receiver did. */
  async sendTest(name: string, actor: Actor): Promise<{ ok: true }> {
    const integration = await this.find(name);
    assertMay(actor, 'integration', 'use', integration, name);
    const message: Outgoing = {
      kind: 'test',
      integration: name,
      actor: actor.name,
      consoleUrl: this.deps.consoleUrl(),
    };
    try {
      await this.queue.once(this.job(integration, message));
    } catch (error) {
      throw badParameter(`the test message was not delivered: ${describeFailure(error)}`);
    }
    return { ok: true };
  }

  close(): void {
    this.queue.close();
  }

  private enqueue(integration: IntegrationResource, message: Outgoing): void {
    this.queue.enqueue(this.job(integration, message));
  }

  private job(integration: IntegrationResource, message: Outgoing) {
    const { box, guard, emailOf, now } = this.deps;
    const send = senders[integration.spec.type];
    return {
      integration: integration.metadata.name,
      subject: subjectOf(message),
      attempt: async (signal: AbortSignal) => {
        const opened = await openIntegration(integration, box);
        await send(opened, message, { guard, signal, emailOf, now });
      },
    };
  }

  /** The URL guard at save time, and plain text SMTP only to this host. */
  private async checkTarget(spec: IntegrationSpec): Promise<void> {
    const target = targetOf(spec);
    if (!target) return;
    const field = spec.type === 'email' ? 'settings.host' : 'settings.url';
    try {
      await this.deps.guard.check(target.host, target.port);
    } catch (error) {
      if (error instanceof TargetRefusedError) throw badParameter(`${field}: ${error.message}`);
      throw error;
    }
    if (spec.type === 'email' && spec.settings.security === 'none') {
      if (!(await this.deps.guard.isLoopback(target.host))) {
        throw badParameter(
          'settings.security: none sends the password in plain text; it is only for an SMTP server on this host (use starttls or tls)',
        );
      }
    }
  }

  private async find(name: string): Promise<IntegrationResource> {
    const integration = await this.deps.store.get(name);
    if (!integration) throw integrationNotFound(name);
    return integration;
  }

  private json(integration: IntegrationResource, status = unusedStatus): IntegrationJson {
    // The stored count is the last writer's; this proxy's own is current for what it holds.
    const pending = Math.max(status.pending, this.queue.pendingOf(integration.metadata.name));
    return integrationJson(integration, { ...status, pending });
  }

  private audited(
    code: 'TIG01I' | 'TIG02I' | 'TIG03I',
    actor: Actor,
    integration: IntegrationResource,
  ) {
    return emitAudit(this.deps.audit, code, {
      user: actor.name,
      name: integration.metadata.name,
      integration_type: integration.spec.type,
    });
  }
}
