import { randomUUID } from 'node:crypto';
import {
  alertLinkLabel,
  alertLinkSchema,
  alertMessageSchema,
  alertSeverities,
  type AlertSeverityName,
  type ClusterAlert,
} from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { badParameter } from '../../errors.js';
import { assertMay, type Actor } from '../../access-control/access/actor.js';
import { parseDuration } from '../../access-control/rbac/index.js';
import type { AuditStore } from '../audit/index.js';
import { emitAudit } from '../audit/emit.js';
import { alertNotFound, type ClusterAlertsStore } from './cluster-alerts.store.js';

export interface NewClusterAlert {
  message: string;
  severity?: AlertSeverityName;
  /** A duration from now ('8h'); absent: until removed. */
  ttl?: string;
  link?: string;
}

/**
 * Cluster alerts: an admin posts one (`postern alerts create`), everyone signed in to the console
 * sees it as a banner until it expires or is removed. Posting and removing are audited.
 */
export class ClusterAlertsService {
  constructor(
    private readonly store: ClusterAlertsStore,
    private readonly audit: AuditStore,
    private readonly now: Clock,
  ) {}

  /** The alerts in force, the most severe first, then the newest. */
  async list(): Promise<ClusterAlert[]> {
    const now = this.now();
    const live = (await this.store.list()).filter(
      (alert) => !alert.metadata.expires || Date.parse(alert.metadata.expires) > now,
    );
    return live.sort(
      (a, b) => b.spec.severity - a.spec.severity || b.spec.created.localeCompare(a.spec.created),
    );
  }

  async create(input: NewClusterAlert, actor: Actor): Promise<ClusterAlert> {
    const message = alertMessageSchema.safeParse(input.message);
    if (!message.success) throw badParameter(message.error.issues[0]!.message);
    const severity = input.severity ?? 'low';
    if (!(severity in alertSeverities)) {
      throw badParameter(`severity: one of ${Object.keys(alertSeverities).join(', ')}`);
    }
    if (input.link !== undefined) {
      const link = alertLinkSchema.safeParse(input.link);
      if (!link.success) throw badParameter(link.error.issues[0]!.message);
    }
    const now = this.now();
    const expires = this.expiry(input.ttl, now);
    const alert: ClusterAlert = {
      kind: 'cluster_alert',
      version: 'v1',
      metadata: {
        name: randomUUID(),
        labels: input.link ? { [alertLinkLabel]: input.link } : {},
        ...(expires ? { expires } : {}),
      },
      spec: {
        severity: alertSeverities[severity],
        message: message.data,
        created: new Date(now).toISOString(),
      },
    };
    assertMay(actor, 'cluster_alert', 'create', alert, alert.metadata.name);
    await this.store.create(alert);
    await emitAudit(this.audit, 'TAL00I', {
      user: actor.name,
      name: alert.metadata.name,
      message: alert.spec.message,
      severity,
      ...(expires ? { expires } : {}),
    });
    return alert;
  }

  async remove(name: string, actor: Actor): Promise<void> {
    const alert = await this.store.get(name);
    if (!alert) throw alertNotFound(name);
    assertMay(actor, 'cluster_alert', 'delete', alert, name);
    await this.store.delete(name);
    await emitAudit(this.audit, 'TAL01I', { user: actor.name, name });
  }

  private expiry(ttl: string | undefined, now: number): string | undefined {
    if (ttl === undefined || ttl === '') return undefined;
    const ms = parseDuration(ttl);
    if (ms === undefined || ms <= 0) {
      throw badParameter(`ttl: expected a duration like '30m', '8h' or '2h30m', got '${ttl}'`);
    }
    return new Date(now + ms).toISOString();
  }
}
