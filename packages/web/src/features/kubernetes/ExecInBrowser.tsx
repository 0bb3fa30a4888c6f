import { useState } from 'react';
import { defaultKubeExecCommand, kubeExecPath } from '../../app/routes';
import { containersOf, ExecPickerView, type ExecChoice } from './ExecPickerView';
import { useKubeNamespaces, useKubePods } from './useKubernetes';

const nothingChosen: ExecChoice = {
  namespace: '',
  pod: '',
  container: '',
  command: defaultKubeExecCommand,
};

/**
 * Exec in browser's picker for one Kubernetes cluster: the namespaces are asked for when it
 * shows (in Connect's popover, so only once that opens), the pods once a namespace is chosen.
 */
export function ExecInBrowser({
  clusterId,
  kubeCluster,
}: {
  clusterId: string;
  kubeCluster: string;
}) {
  const [chosen, setChosen] = useState<ExecChoice>(nothingChosen);
  const namespaces = useKubeNamespaces(clusterId, kubeCluster);
  const pods = useKubePods(clusterId, kubeCluster, chosen.namespace);
  // Until another is picked, the container is the pod's first (kubectl's default too).
  const containers = containersOf(pods, chosen.pod);
  const container = containers.includes(chosen.container)
    ? chosen.container
    : (containers[0] ?? '');
  const choice = { ...chosen, container };
  const href = kubeExecPath({ clusterId, name: kubeCluster, ...choice });
  return (
    <ExecPickerView
      namespaces={namespaces}
      pods={pods}
      choice={choice}
      onNamespaceChange={(namespace) =>
        setChosen((now) => ({ ...now, namespace, pod: '', container: '' }))
      }
      onPodChange={(pod) => setChosen((now) => ({ ...now, pod, container: '' }))}
      onContainerChange={(next) => setChosen((now) => ({ ...now, container: next }))}
      onCommandChange={(command) => setChosen((now) => ({ ...now, command }))}
      href={href}
    />
  );
}
