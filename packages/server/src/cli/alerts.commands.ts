import { alertLevel, alertLinkLabel, type AlertSeverityName } from '@postern/contracts';
import { systemClock } from '../clock.js';
import { hostActor } from '../access-control/access/actor.js';
import { buildClusterAlerts } from '../modules/cluster-alerts/index.js';
import type { AdminContext } from './admin-context.js';
import { printTable, type Print } from './table.js';
import { cliActor } from './users.commands.js';

export interface AlertsCreateOptions {
  severity?: AlertSeverityName;
  ttl?: string;
  link?: string;
}

const alertsOf = (ctx: AdminContext) =>
  buildClusterAlerts({ backend: ctx.backend, audit: ctx.audit, now: systemClock });

/** `postern alerts create MESSAGE [--severity low|medium|high] [--ttl 8h] [--link URL]`. */
export async function alertsCreate(
  ctx: AdminContext,
  message: string,
  options: AlertsCreateOptions,
  print: Print,
): Promise<string> {
  const alert = await alertsOf(ctx).create({ message, ...options }, hostActor(cliActor()));
  const until = alert.metadata.expires ? `until ${alert.metadata.expires}` : 'until it is removed';
  print(`Posted alert ${alert.metadata.name} to everyone in the console, ${until}.`);
  return alert.metadata.name;
}

/** `postern alerts ls`: the alerts in force, the most severe first. */
export async function alertsList(ctx: AdminContext, print: Print): Promise<void> {
  const alerts = await alertsOf(ctx).list();
  if (alerts.length === 0) return print('No alerts.');
  printTable(
    ['ID', 'Severity', 'Expires', 'Message', 'Link'],
    alerts.map((alert) => [
      alert.metadata.name,
      alertLevel(alert.spec.severity),
      alert.metadata.expires ?? 'never',
      alert.spec.message,
      alert.metadata.labels[alertLinkLabel] ?? '',
    ]),
    print,
  );
}

/** `postern alerts rm ID`. */
export async function alertsRemove(ctx: AdminContext, name: string, print: Print): Promise<void> {
  await alertsOf(ctx).remove(name, hostActor(cliActor()));
  print(`Removed alert ${name}.`);
}
