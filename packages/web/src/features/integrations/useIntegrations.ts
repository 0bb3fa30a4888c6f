import type { IntegrationInput } from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import {
  createIntegration,
  deleteIntegration,
  fetchIntegrations,
  testIntegration,
  updateIntegration,
} from './integrationsApi';

const integrationsKey = (clusterId: string) => ['integrations', clusterId] as const;

/** `GET integrations` of the proxy cluster. */
export function useIntegrations() {
  const { proxyCluster } = useClientConfig();
  return useQuery({
    queryKey: integrationsKey(proxyCluster),
    queryFn: ({ signal }) => fetchIntegrations(proxyCluster, signal),
  });
}

export interface IntegrationActions {
  create(input: IntegrationInput): Promise<void>;
  update(input: IntegrationInput): Promise<void>;
  remove(name: string): Promise<void>;
  /** Sends a test message; the status shown afterwards is the server's. */
  test(name: string): Promise<void>;
}

export function useIntegrationActions(): IntegrationActions {
  const { proxyCluster } = useClientConfig();
  const client = useQueryClient();
  return useMemo(() => {
    const reload = () => client.invalidateQueries({ queryKey: integrationsKey(proxyCluster) });
    return {
      create: async (input) => {
        await createIntegration(proxyCluster, input);
        await reload();
      },
      update: async (input) => {
        await updateIntegration(proxyCluster, input);
        await reload();
      },
      remove: async (name) => {
        await deleteIntegration(proxyCluster, name);
        await reload();
      },
      test: async (name) => {
        try {
          await testIntegration(proxyCluster, name);
        } finally {
          await reload();
        }
      },
    };
  }, [client, proxyCluster]);
}
