import type { JoinTokenRole, UserAcl } from '@postern/contracts';

export type EnrollKindId = 'server' | 'openssh' | 'app' | 'database' | 'kubernetes' | 'desktop';

/** Where a joined resource is listed: the list's API, its page, and the right to read it. */
export type EnrolledList = 'nodes' | 'apps' | 'databases' | 'kubernetes' | 'desktops';

/** What the form asks before the command can be written. */
export type EnrollForm =
  /** Labels for the host (they go into the join token, which gives them to the node). */
  | { type: 'labels' }
  /** A name and the address the agent reaches it at (the install link's `name` and `uri`). */
  | { type: 'nameUri'; uriLabel: string; uriPlaceholder: string; uriHint: string }
  /** A name and the kubeconfig on the agent's host. */
  | { type: 'kube' };

export interface EnrollKind {
  id: EnrollKindId;
  title: string;
  description: string;
  /** What the join token grants. */
  tokenRole: JoinTokenRole;
  list: EnrolledList;
  form: EnrollForm;
  /** The resource list the joined resource shows in. */
  listRoute:
    'clusterNodes' | 'clusterApps' | 'clusterDatabases' | 'clusterKubernetes' | 'clusterDesktops';
  /** What people call one of them, for "Waiting for the … to join". */
  noun: string;
}

/**
 * What Enroll New Resource offers: every way a resource joins the cluster with a join token
 * (docs/agents.md, docs/nodes.md and each protocol's "behind an agent" section), in the order a
 * new cluster usually needs them.
 */
export const enrollKinds: readonly EnrollKind[] = [
  {
    id: 'server',
    title: 'Server with the Postern agent',
    description:
      'A Linux host serves SSH through a reverse tunnel the agent keeps to this proxy: no inbound port.',
    tokenRole: 'Node',
    list: 'nodes',
    form: { type: 'labels' },
    listRoute: 'clusterNodes',
    noun: 'server',
  },
  {
    id: 'openssh',
    title: 'OpenSSH server',
    description:
      "A host keeps its own sshd: the install script makes it trust the cluster's user CA and registers it.",
    tokenRole: 'Node',
    list: 'nodes',
    form: { type: 'labels' },
    listRoute: 'clusterNodes',
    noun: 'server',
  },
  {
    id: 'app',
    title: 'Application',
    description: 'A web app (http, https) or a TCP service, served by an agent that reaches it.',
    tokenRole: 'App',
    list: 'apps',
    form: {
      type: 'nameUri',
      uriLabel: 'Address',
      uriPlaceholder: 'http://localhost:3000',
      uriHint: 'http://, https:// or tcp://host:port, as the agent host reaches it',
    },
    listRoute: 'clusterApps',
    noun: 'application',
  },
  {
    id: 'database',
    title: 'Database',
    description: 'PostgreSQL or MySQL/MariaDB, reached with certificates: no shared password.',
    tokenRole: 'Db',
    list: 'databases',
    form: {
      type: 'nameUri',
      uriLabel: 'Address',
      uriPlaceholder: 'postgres://localhost:5432',
      uriHint:
        'postgres://host:port or mysql://host:port, with ?sslmode= and ?sslrootcert= if needed; the database must trust the CA from postern db ca export',
    },
    listRoute: 'clusterDatabases',
    noun: 'database',
  },
  {
    id: 'kubernetes',
    title: 'Kubernetes cluster',
    description:
      "A cluster reached from the agent's host with a kubeconfig that stays on that host.",
    tokenRole: 'Kube',
    list: 'kubernetes',
    form: { type: 'kube' },
    listRoute: 'clusterKubernetes',
    noun: 'Kubernetes cluster',
  },
  {
    id: 'desktop',
    title: 'VNC desktop',
    description: 'A desktop in the browser, its VNC password kept in a file on the agent host.',
    tokenRole: 'WindowsDesktop',
    list: 'desktops',
    form: {
      type: 'nameUri',
      uriLabel: 'Address',
      uriPlaceholder: 'vnc://localhost:5901?password_file=/etc/postern/build.vncpass',
      uriHint: 'vnc://host:port, with ?password_file= naming the password file on the agent host',
    },
    listRoute: 'clusterDesktops',
    noun: 'desktop',
  },
];

const readAndList = (access: { read: boolean; list: boolean }) => access.read && access.list;

/**
 * Whether the user could see the resource once it joined (spec §6, listing agents): Enroll New
 * Resource waits for it in its list, so a kind whose list the user cannot read is not offered.
 */
export function mayWatch(acl: UserAcl, list: EnrolledList): boolean {
  switch (list) {
    case 'nodes':
      return acl.nodes.list;
    case 'apps':
      return readAndList(acl.appServers);
    case 'databases':
      return readAndList(acl.dbServers);
    case 'kubernetes':
      return readAndList(acl.kubeServers);
    case 'desktops':
      return readAndList(acl.desktops);
  }
}
