import { scriptPaths } from '@postern/contracts';
import type { ProxyAddress } from '../nodes/NodesView';
import type { EnrollInput } from './enrollInput';
import type { EnrollKindId } from './enrollKinds';

export interface CommandOptions {
  kind: EnrollKindId;
  input: EnrollInput;
  /** The join token's secret. */
  token: string;
  proxy: ProxyAddress;
  /**
   * The proxy's certificate is the embedded self-signed one: curl and the agent must be told to
   * accept it (`-k`, `POSTERN_INSECURE_TLS=1`, `--insecure`).
   */
  selfSigned: boolean;
}

/** One word for bash: as is when it holds nothing bash reads specially, else single-quoted. */
export function shellWord(word: string): string {
  if (/^[\w./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command that enrols the resource, to run on its host: the install script for what has one
 * (an OpenSSH host, an app, a database, a desktop; as root it becomes a service), the agent
 * itself for a server (as root, so it can log in any local user) and a Kubernetes cluster (as the
 * user whose kubeconfig it reads; the name is a DNS label, so `~` can stay unquoted).
 */
export function enrollCommand({ kind, input, token, proxy, selfSigned }: CommandOptions): string {
  const insecureFlag = selfSigned ? ' --insecure' : '';
  // `--proxy host:port` means HTTPS; a proxy served over plain HTTP is named by its URL.
  const agentProxy = proxy.origin.startsWith('https:') ? proxy.addr : proxy.origin;
  const script = (path: string) => {
    const curl = selfSigned ? 'curl -fsSLk' : 'curl -fsSL';
    const bash = selfSigned ? 'sudo POSTERN_INSECURE_TLS=1 bash' : 'sudo bash';
    return `${curl} ${shellWord(`${proxy.origin}${path}`)} | ${bash}`;
  };
  const name = input.name.trim();
  const link = { name, uri: input.uri.trim() };
  switch (kind) {
    case 'server':
      return `sudo postern agent --proxy ${agentProxy} --token ${token} --data-dir /var/lib/postern/agent${insecureFlag}`;
    case 'openssh':
      return script(scriptPaths.installNode(token));
    case 'app':
      return script(scriptPaths.installApp(token, link));
    case 'database':
      return script(scriptPaths.installDatabase(token, link));
    case 'desktop':
      return script(scriptPaths.installDesktop(token, link));
    case 'kubernetes':
      return `postern agent --proxy ${agentProxy} --token ${token} --kube ${shellWord(name)} --kubeconfig ${shellWord(input.kubeconfig.trim())} --data-dir ~/.postern/kube-${name}${insecureFlag}`;
  }
}
