import type {
  KubeClusterJson,
  KubeClusterListResponse,
  KubeResourceItem,
  KubeResourcesResponse,
} from '@postern/contracts';

const kubeCluster = (
  overrides: Partial<KubeClusterJson> & Pick<KubeClusterJson, 'name'>,
): KubeClusterJson => ({
  kind: 'kube_cluster',
  description: '',
  labels: [],
  kubernetes_users: [],
  kubernetes_groups: [],
  tunnel: false,
  status: 'online',
  ...overrides,
});

/** `GET /v1/webapi/sites/{clusterId}/kubernetes` items as the server sends them. */
export const kubeClusterFixtures: KubeClusterJson[] = [
  kubeCluster({
    name: 'prod',
    description: 'Production',
    labels: [
      { name: 'env', value: 'prod' },
      { name: 'region', value: 'eu' },
    ],
    kubernetes_users: ['deployer'],
    kubernetes_groups: ['developers', 'viewers'],
  }),
  kubeCluster({
    name: 'edge',
    description: 'Edge site (through an agent)',
    tunnel: true,
    status: 'offline',
  }),
];

export const kubeClusterPage = (items: KubeClusterJson[]): KubeClusterListResponse => ({
  items,
  startKey: '',
  totalCount: items.length,
});

const namespace = (name: string): KubeResourceItem => ({
  name,
  namespace: '',
  containers: [],
  status: 'Active',
});

/** `GET …/kubernetes/{name}/resources?kind=namespace`. */
export const namespaceFixtures: KubeResourcesResponse = {
  items: [namespace('default'), namespace('shop')],
};

/** `GET …/kubernetes/{name}/resources?kind=pod&kubeNamespace=shop`. */
export const shopPodFixtures: KubeResourcesResponse = {
  items: [
    {
      name: 'web-7d4f9',
      namespace: 'shop',
      containers: ['nginx', 'log-shipper'],
      status: 'Running',
    },
    { name: 'worker-0', namespace: 'shop', containers: ['worker'], status: 'Pending' },
  ],
};
