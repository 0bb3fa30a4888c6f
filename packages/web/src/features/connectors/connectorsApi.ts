import {
  apiPaths,
  connectorItemSchema,
  connectorKinds,
  type ConnectorItem,
  type ConnectorKind,
} from '@postern/contracts';
import { api, decode } from '../../api';

/**
 * Auth connector calls (spec §7 `github/{name?}`, and the same shape for `oidc` and `saml`).
 * Each kind has its own list; the screen shows them as one.
 */

async function fetchKind(kind: ConnectorKind, signal?: AbortSignal): Promise<ConnectorItem[]> {
  const url = apiPaths.connectors(kind);
  return decode(connectorItemSchema.array(), await api.get(url, { signal }), url);
}

/** The three lists merged, by name (then kind, when two kinds share a name). */
export async function fetchConnectors(signal?: AbortSignal): Promise<ConnectorItem[]> {
  const lists = await Promise.all(connectorKinds.map((kind) => fetchKind(kind, signal)));
  const order = (kind: ConnectorKind) => connectorKinds.indexOf(kind);
  return lists.flat().sort((a, b) => a.name.localeCompare(b.name) || order(a.kind) - order(b.kind));
}

/**
 * One connector as stored now (the 409 flow's Reload). The API has no single-connector GET, so
 * this reads its kind's list.
 */
export async function fetchConnector(kind: ConnectorKind, name: string): Promise<ConnectorItem> {
  const found = (await fetchKind(kind)).find((item) => item.name === name);
  if (!found) throw new Error(`the ${kind} connector ${name} no longer exists`);
  return found;
}

/** `POST /{kind}`: a new connector; the server refuses a name that exists. */
export async function createConnector(kind: ConnectorKind, content: string): Promise<void> {
  await api.post(apiPaths.connectors(kind), { content });
}

/**
 * `PUT /{kind}/{name}`: saves over the revision the YAML carries (409 when it moved on); a secret
 * left as the placeholder keeps the stored one.
 */
export async function updateConnector(
  kind: ConnectorKind,
  name: string,
  content: string,
): Promise<void> {
  await api.put(apiPaths.connector(kind, name), { content });
}

export async function deleteConnector(kind: ConnectorKind, name: string): Promise<void> {
  await api.delete(apiPaths.connector(kind, name));
}
