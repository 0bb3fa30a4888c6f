import { appLaunchPath, type AppJson, type AppSortField, type NodeLabel } from '@postern/contracts';
import type { ListFilters, ListSort } from '../../components/resourceList/listFilters';

/** An AWS role an app may be opened with (the reference's AWS console apps; none here yet). */
export interface AwsRole {
  arn: string;
  display: string;
}

/** The console's model of an application (spec §3 App). */
export interface App {
  /** Unique in a listing: the cluster, the name and where it is served. */
  id: string;
  name: string;
  description: string;
  uri: string;
  publicAddr: string;
  labels: NodeLabel[];
  clusterId: string;
  fqdn: string;
  /** The launcher's path; undefined unless fqdn, clusterId and publicAddr are all known (spec §2). */
  launchUrl: string | undefined;
  awsRoles: AwsRole[];
  awsConsole: boolean;
  /** A `tcp://` app: reached with `postern proxy app`, never launched in the browser. */
  isTcp: boolean;
  /** Not opened in a browser tab (spec §3: TCP, and cloud apps, which this build has none of). */
  isCloudOrTcpEndpoint: boolean;
  /** The address with its scheme: `https://` for HTTP apps, `tcp://` for TCP ones (spec §3). */
  addrWithProtocol: string;
  /** The name people read; our apps have only their name. */
  friendlyName: string;
  /** Okta user groups in the reference; always empty here. */
  userGroups: string[];
  tunnel: boolean;
  status: 'online' | 'offline';
}

/** Where the address points, with the scheme a person uses to reach it. */
export function addrWithProtocolOf(json: Pick<AppJson, 'publicAddr' | 'uri' | 'isTcp'>): string {
  if (!json.publicAddr) return json.uri;
  return `${json.isTcp ? 'tcp' : 'https'}://${json.publicAddr}`;
}

/** The launcher's path, only when all three parts are present (spec §2). */
export function launchUrlOf(
  json: Pick<AppJson, 'fqdn' | 'clusterId' | 'publicAddr'>,
): string | undefined {
  return json.fqdn && json.clusterId && json.publicAddr ? appLaunchPath(json) : undefined;
}

export function makeApp(json: AppJson): App {
  return {
    id: `${json.clusterId}-${json.name}-${json.publicAddr || json.uri}`,
    name: json.name,
    description: json.description,
    uri: json.uri,
    publicAddr: json.publicAddr,
    labels: json.labels,
    clusterId: json.clusterId,
    fqdn: json.fqdn,
    launchUrl: launchUrlOf(json),
    awsRoles: json.awsRoles,
    awsConsole: json.awsConsole,
    isTcp: json.isTcp,
    isCloudOrTcpEndpoint: json.isTcp,
    addrWithProtocol: addrWithProtocolOf(json),
    friendlyName: json.name,
    userGroups: [],
    tunnel: json.tunnel,
    status: json.status,
  };
}

/** One page of the server's listing. */
export interface AppPage {
  apps: App[];
  /** The next page's key; '' on the last page. */
  startKey: string;
  totalCount: number;
}

export type AppSort = ListSort<AppSortField>;

/** What the list is narrowed and ordered by; all of it goes to the server. */
export type AppFilters = ListFilters<AppSortField>;

export const noFilters: AppFilters = { search: '', query: '' };

/** The command that opens a local tunnel to an app; with `leaf`, a trusted leaf cluster's. */
export const proxyAppCommand = (app: Pick<App, 'name'>, leaf?: string) =>
  `postern proxy app ${app.name}${leaf ? ` --cluster ${leaf}` : ''}`;
