import type { ProxyAddress } from '../nodes/NodesView';

export interface JoinCommandOptions {
  token: string;
  proxy: ProxyAddress;
  /** The proxy serves its embedded self-signed certificate: the bot must be told to accept it. */
  selfSigned: boolean;
}

/**
 * What to run on the bot's host with a join token (docs/bots.md): `postern bot start` joins,
 * writes a `postern login` home into the destination and keeps its certificate fresh.
 */
export function botJoinCommand({ token, proxy, selfSigned }: JoinCommandOptions): string {
  // `--proxy host:port` means HTTPS; a proxy served over plain HTTP is named by its URL.
  const target = proxy.origin.startsWith('https:') ? proxy.addr : proxy.origin;
  const insecure = selfSigned ? ' --insecure' : '';
  return `postern bot start --proxy ${target} --token ${token} --destination /var/lib/postern-bot${insecure}`;
}
