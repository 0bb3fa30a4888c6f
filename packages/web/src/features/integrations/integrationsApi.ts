import {
  apiPaths,
  integrationJsonSchema,
  integrationListSchema,
  type IntegrationInput,
} from '@postern/contracts';
import { api, decode } from '../../api';
import { makeIntegration, type Integration } from './makeIntegration';

/** Integration calls (docs/integrations.md) on the proxy cluster. */

export async function fetchIntegrations(
  clusterId: string,
  signal?: AbortSignal,
): Promise<Integration[]> {
  const url = apiPaths.integrations(clusterId);
  const list = decode(integrationListSchema, await api.get(url, { signal }), url);
  return list.items.map(makeIntegration);
}

export async function createIntegration(clusterId: string, input: IntegrationInput) {
  const url = apiPaths.integrations(clusterId);
  return makeIntegration(decode(integrationJsonSchema, await api.post(url, input), url));
}

/** `PUT`: secrets left out keep the stored ones. */
export async function updateIntegration(clusterId: string, input: IntegrationInput) {
  const url = apiPaths.integration(clusterId, input.name);
  return makeIntegration(decode(integrationJsonSchema, await api.put(url, input), url));
}

export async function deleteIntegration(clusterId: string, name: string): Promise<void> {
  await api.delete(apiPaths.integration(clusterId, name));
}

/** Sends a test message now; rejects with what the receiver answered. */
export async function testIntegration(clusterId: string, name: string): Promise<void> {
  await api.post(apiPaths.integrationTest(clusterId, name));
}
