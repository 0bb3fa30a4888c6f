import { scriptPaths, type JoinTokenRole } from '@postern/contracts';
import { systemClock } from '../../../clock.js';
import { ConfigError } from '../../../config/config.js';
import { formatDuration, parseDuration } from '../../../config/duration.js';
import { hostActor } from '../../../access-control/access/actor.js';
import {
  joinTokenDefaultTtlMs,
  joinTokenId,
  JoinTokensService,
} from '../../../modules/join-tokens/join-tokens.service.js';
import { JoinTokensStore } from '../../../modules/join-tokens/join-tokens.store.js';
import type { AdminContext } from '../../../cli/admin-context.js';
import { parseLabels } from './nodes.commands.js';
import { printTable, type Print } from '../../../cli/table.js';
import { cliActor, list } from '../../../cli/users.commands.js';

/** `--type` values: what the joining agent will be. */
const typeRoles: Record<string, JoinTokenRole> = {
  node: 'Node',
  app: 'App',
  db: 'Db',
  kube: 'Kube',
  windowsdesktop: 'WindowsDesktop',
  trusted_cluster: 'Trusted_cluster',
};

const service = (ctx: AdminContext) =>
  new JoinTokensService(new JoinTokensStore(ctx.backend), ctx.audit, systemClock);

/** `postern tokens add --type node [--ttl 30m] [--labels k=v,...]`: prints the token once. */
export async function tokensAdd(
  ctx: AdminContext,
  options: { type: string; ttl?: string; labels?: string },
  print: Print,
): Promise<string> {
  const roles = list(options.type).map((type) => {
    const role = typeRoles[type.toLowerCase()];
    if (!role) {
      throw new ConfigError(`--type: expected ${Object.keys(typeRoles).join(', ')}, got '${type}'`);
    }
    return role;
  });
  if (roles.length === 0) throw new ConfigError('--type needs a value, for example --type node');
  const ttlMs =
    options.ttl === undefined ? joinTokenDefaultTtlMs : parseDuration(options.ttl, '--ttl');
  const { token, resource } = await service(ctx).create(
    {
      roles,
      join_method: 'token',
      allow: [],
      suggested_agent_matcher_labels: parseLabels(options.labels),
    },
    hostActor(cliActor()),
    { ttlMs },
  );
  const proxy = new URL(ctx.baseUrl).host;
  const scriptUrl = `${ctx.baseUrl}${scriptPaths.installNode(token)}`;
  // The embedded default serves a self-signed certificate that curl cannot verify.
  const selfSigned = ctx.baseUrl.startsWith('https:') && !ctx.config.tls;
  print(`The join token: ${token}`);
  print(
    `It expires in ${formatDuration(ttlMs)}, at ${resource.metadata.expires}. It is not shown again.`,
  );
  if (roles.some((role) => role !== 'Trusted_cluster')) {
    print('');
    print('To join a host with the Postern agent, run on it:');
    print(`  postern agent --proxy ${proxy} --token ${token}`);
  }
  if (roles.includes('Trusted_cluster')) printTrustedClusterHint(ctx, token, proxy, print);
  if (roles.includes('Node')) {
    print('');
    print('To make an OpenSSH host join without an agent, run on it:');
    print(
      selfSigned
        ? `  curl -fsSk ${scriptUrl} | sudo env POSTERN_INSECURE_TLS=1 bash`
        : `  curl -fsS ${scriptUrl} | sudo bash`,
    );
  }
  if (roles.includes('App')) {
    const appUrl = `${ctx.baseUrl}${scriptPaths.installApp(token, { name: 'NAME', uri: 'URI' })}`;
    print('');
    print('To serve an app from a host that reaches it (with postern installed there), run on it:');
    print(
      selfSigned
        ? `  curl -fsSk '${appUrl}' | sudo env POSTERN_INSECURE_TLS=1 bash`
        : `  curl -fsS '${appUrl}' | sudo bash`,
    );
  }
  if (roles.includes('Db')) {
    const dbUrl = `${ctx.baseUrl}${scriptPaths.installDatabase(token, { name: 'NAME', uri: 'URI' })}`;
    print('');
    print(
      'To serve a database from a host that reaches it (with postern installed there), run on it:',
    );
    print(
      selfSigned
        ? `  curl -fsSk '${dbUrl}' | sudo env POSTERN_INSECURE_TLS=1 bash`
        : `  curl -fsS '${dbUrl}' | sudo bash`,
    );
    print('  (URI: postgres://HOST:PORT or mysql://HOST:PORT, URL-encoded if it has ?sslmode=…)');
  }
  return token;
}

/** `postern tokens ls`: live tokens, masked; the full token is never shown again. */
export async function tokensList(ctx: AdminContext, print: Print): Promise<void> {
  const tokens = await service(ctx).list(hostActor(cliActor()));
  if (tokens.length === 0) {
    print('No join tokens.');
    return;
  }
  printTable(
    ['ID', 'TOKEN', 'ROLES', 'EXPIRES', 'LABELS'],
    tokens.map((token) => [
      joinTokenId(token),
      `${'*'.repeat(28)}${token.spec.hint}`,
      token.spec.roles.join(','),
      token.metadata.expires,
      Object.entries(token.spec.suggestedLabels)
        .map(([name, values]) => `${name}=${values.join('|')}`)
        .join(','),
    ]),
    print,
  );
}

/** `postern tokens rm <token-or-id>`. */
export async function tokensRemove(
  ctx: AdminContext,
  tokenOrId: string,
  print: Print,
): Promise<void> {
  const token = await service(ctx).remove(tokenOrId, hostActor(cliActor()));
  print(`Join token ${joinTokenId(token)} has been deleted.`);
}

/** A leaf cluster's admin pastes this on the leaf (Trusted Clusters, or `postern create -f`). */
function printTrustedClusterHint(ctx: AdminContext, token: string, proxy: string, print: Print) {
  print('');
  print('To make a leaf cluster trust this one, create this resource on the leaf');
  print("(its console's Trusted Clusters page, or `postern create -f` there):");
  print(`  kind: trusted_cluster
  version: v2
  metadata:
    name: ${ctx.config.clusterName}
  spec:
    token: ${token}
    web_proxy_addr: ${proxy}
    role_map:
      - remote: access
        local: [access]`);
}
