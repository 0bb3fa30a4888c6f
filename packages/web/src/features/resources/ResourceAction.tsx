import { AppAction } from '../apps/AppAction';
import { ConnectDatabase } from '../databases/ConnectDatabase';
import { ConnectDesktop } from '../desktops/ConnectDesktop';
import { ConnectKube } from '../kubernetes/ConnectKube';
import { ExecInBrowser } from '../kubernetes/ExecInBrowser';
import type { LoginsHelp } from '../nodes/AddLoginsHint';
import { connectInNewTab } from '../nodes/NodesPage';
import { ConnectNode } from '../nodes/NodesView';
import type { Resource } from './makeResource';

interface Props {
  resource: Resource;
  /** The cluster listed. */
  clusterId: string;
  /** Set when that cluster is a trusted leaf: the CLI reaches its resources with `--cluster`. */
  leaf: string | undefined;
  /** How a user with no logins on a server gets some. */
  loginsHelp: LoginsHelp;
}

/**
 * A row's own action, exactly as its kind's page renders it: a server's logins, an app's Launch
 * (or tunnel command), a database's, a Kubernetes cluster's (with Exec in browser) or a desktop's
 * Connect.
 */
export function ResourceAction({ resource, clusterId, leaf, loginsHelp }: Props) {
  switch (resource.kind) {
    case 'node':
      return (
        <ConnectNode
          node={resource.node}
          connect={connectInNewTab(clusterId)}
          loginsHelp={loginsHelp}
        />
      );
    case 'app':
      return <AppAction app={resource.app} leaf={leaf} />;
    case 'db':
      return <ConnectDatabase db={resource.db} clusterId={clusterId} leaf={leaf} />;
    case 'kube_cluster':
      return (
        <ConnectKube
          cluster={resource.cluster}
          exec={<ExecInBrowser clusterId={clusterId} kubeCluster={resource.cluster.name} />}
          leaf={leaf}
        />
      );
    case 'windows_desktop':
      return <ConnectDesktop clusterId={clusterId} desktop={resource.desktop} />;
  }
}
