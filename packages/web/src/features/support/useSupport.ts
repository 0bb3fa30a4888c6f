import { apiPaths, pingResponseSchema, type PingResponse } from '@postern/contracts';
import { useQuery } from '@tanstack/react-query';
import { api, decode } from '../../api';

/** What Help & Support shows about the cluster. */
export interface SupportInfo {
  clusterName: string;
  serverVersion: string;
  sshPublicAddr: string;
}

export function makeSupportInfo(ping: PingResponse): SupportInfo {
  return {
    clusterName: ping.cluster_name,
    serverVersion: ping.server_version,
    sshPublicAddr: ping.proxy.ssh.public_addr,
  };
}

export async function fetchSupportInfo(signal?: AbortSignal): Promise<SupportInfo> {
  const json = await api.get(apiPaths.ping, { signal });
  return makeSupportInfo(decode(pingResponseSchema, json, apiPaths.ping));
}

/** `GET /v1/webapi/ping`: public, and enough for the support page. */
export function useSupport() {
  return useQuery({ queryKey: ['ping'], queryFn: ({ signal }) => fetchSupportInfo(signal) });
}
