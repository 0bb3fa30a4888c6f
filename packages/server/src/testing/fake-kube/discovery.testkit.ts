/**
 * The discovery documents kubectl reads before anything else, in their legacy forms: kubectl
 * asks for aggregated discovery (apidiscovery.k8s.io/v2) in Accept but takes these when the
 * answer is plain `application/json`, as from servers older than 1.26.
 */
export function versionInfo(gitVersion: string) {
  const [major = '1', minor = '32'] = gitVersion.replace(/^v/, '').split('.');
  return {
    major,
    minor,
    gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2024-12-11T00:00:00Z',
    goVersion: 'go1.23.4',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

export const apiGroupList = { kind: 'APIGroupList', apiVersion: 'v1', groups: [] };

const resource = (
  name: string,
  kind: string,
  verbs: string[],
  extra: { singularName?: string; shortNames?: string[]; namespaced?: boolean } = {},
) => ({
  name,
  singularName: extra.singularName ?? '',
  namespaced: extra.namespaced ?? true,
  kind,
  verbs,
  ...(extra.shortNames ? { shortNames: extra.shortNames } : {}),
});

/** What the fake serves of core/v1: pods and their subresources, namespaces. */
export const coreV1Resources = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    resource('namespaces', 'Namespace', ['get', 'list', 'watch'], {
      singularName: 'namespace',
      shortNames: ['ns'],
      namespaced: false,
    }),
    resource('pods', 'Pod', ['get', 'list', 'watch'], {
      singularName: 'pod',
      shortNames: ['po'],
    }),
    resource('pods/attach', 'PodAttachOptions', ['create', 'get']),
    resource('pods/exec', 'PodExecOptions', ['create', 'get']),
    resource('pods/log', 'Pod', ['get']),
    resource('pods/portforward', 'PodPortForwardOptions', ['create', 'get']),
  ],
};
