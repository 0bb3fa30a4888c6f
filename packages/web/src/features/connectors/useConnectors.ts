import type { ConnectorKind } from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import {
  createConnector,
  deleteConnector,
  fetchConnector,
  fetchConnectors,
  updateConnector,
} from './connectorsApi';

export const connectorsQueryKey = ['connectors'] as const;

/** Every OIDC, SAML and GitHub connector the user may read. */
export function useConnectors() {
  return useQuery({
    queryKey: connectorsQueryKey,
    queryFn: ({ signal }) => fetchConnectors(signal),
  });
}

export interface ConnectorActions {
  create(kind: ConnectorKind, content: string): Promise<void>;
  update(kind: ConnectorKind, name: string, content: string): Promise<void>;
  remove(kind: ConnectorKind, name: string): Promise<void>;
  /** The connector's YAML as stored now (the 409 flow's Reload). */
  latest(kind: ConnectorKind, name: string): Promise<string>;
}

/** Writes reload the list, so the cards show what the server stored. */
export function useConnectorActions(): ConnectorActions {
  const client = useQueryClient();
  return useMemo(() => {
    const reload = () => client.invalidateQueries({ queryKey: connectorsQueryKey });
    return {
      create: async (kind, content) => {
        await createConnector(kind, content);
        await reload();
      },
      update: async (kind, name, content) => {
        await updateConnector(kind, name, content);
        await reload();
      },
      remove: async (kind, name) => {
        await deleteConnector(kind, name);
        await reload();
      },
      latest: async (kind, name) => (await fetchConnector(kind, name)).content,
    };
  }, [client]);
}
