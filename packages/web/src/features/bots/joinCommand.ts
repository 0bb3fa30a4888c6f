import type { ProxyAddress } from '../nodes/NodesView';

export interface JoinCommandOptions {
  /** A single-use join token; or `bot`, for a CI job that joins with its ID token. */
  join: { token: string } | { bot: string };
  proxy: ProxyAddress;
  /** The proxy serves its embedded self-signed certificate: the bot must be told to accept it. */
  selfSigned: boolean;
}

/**
 * What to run on the bot's host with a join token (docs/bots.md): `postern bot start` joins,
 * writes a `postern login` home into the destination and keeps its certificate fresh. A CI job
 * joins with the ID token its CI system put in POSTERN_ID_TOKEN instead, once per job.
 */
export function botJoinCommand({ join, proxy, selfSigned }: JoinCommandOptions): string {
  // `--proxy host:port` means HTTPS; a proxy served over plain HTTP is named by its URL.
  const target = proxy.origin.startsWith('https:') ? proxy.addr : proxy.origin;
  const insecure = selfSigned ? ' --insecure' : '';
  if ('bot' in join) {
    return `postern bot start --proxy ${target} --bot ${join.bot} --oidc-token-env POSTERN_ID_TOKEN --destination ./postern-bot --oneshot${insecure}`;
  }
  return `postern bot start --proxy ${target} --token ${join.token} --destination /var/lib/postern-bot${insecure}`;
}
