import { Code, Text } from '@mantine/core';
import { apiPaths, type KubeExecRequest } from '@postern/contracts';
import { useParams, useSearchParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { defaultKubeExecCommand, routePath } from '../../app/routes';
import { SingleTerminalPage } from '../console/SingleTerminalPage';
import type { TerminalSocketTarget } from '../console/startTerminalSession';
import type { TerminalDeps } from '../console/terminalDeps';

export interface KubeExecTarget {
  clusterId: string;
  /** The Kubernetes cluster's name. */
  name: string;
  namespace: string;
  pod: string;
  container: string;
  command: string;
}

/** Exec in browser's socket: the terminal protocol, with the pod, container and command in `params`. */
export function kubeExecSocket(target: KubeExecTarget): TerminalSocketTarget {
  return {
    path: apiPaths.kubeExec(target.clusterId, target.name),
    params: (term): KubeExecRequest => ({
      namespace: target.namespace,
      pod: target.pod,
      container: target.container,
      command: target.command,
      term,
    }),
  };
}

/**
 * `/web/cluster/:clusterId/kubernetes/:name/exec/:namespace/:pod/:container?command=…`: a
 * terminal in one container of a pod (full page), the server console's terminal on the cluster's
 * exec socket. One session per page: another pod, container or command is another page.
 */
export function KubeExecPage({ deps }: { deps?: Partial<TerminalDeps> } = {}) {
  const { proxyCluster } = useClientConfig();
  const params = useParams();
  const [search] = useSearchParams();
  const target: KubeExecTarget = {
    clusterId: params.clusterId ?? proxyCluster,
    name: params.name ?? '',
    namespace: params.namespace ?? '',
    pod: params.pod ?? '',
    container: params.container ?? '',
    command: search.get('command')?.trim() || defaultKubeExecCommand,
  };
  const { clusterId, name, namespace, pod, container, command } = target;
  return (
    <SingleTerminalPage
      home={{ href: routePath('clusterKubernetes', { clusterId }), label: 'Postern Kubernetes' }}
      title={`Exec in ${namespace}/${pod}`}
      details={
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          cluster <Code aria-label="Kubernetes cluster">{name}</Code>, container{' '}
          <Code aria-label="Container">{container}</Code>, command{' '}
          <Code aria-label="Command">{command}</Code>
        </Text>
      }
      target={kubeExecSocket(target)}
      // Another cluster, pod, container or command in the URL is another session.
      sessionKey={JSON.stringify(target)}
      deps={deps}
    />
  );
}
