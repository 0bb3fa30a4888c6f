import { integrationTitles, type IntegrationJson, type IntegrationType } from '@postern/contracts';
import { formatDateTime, parseTimestamp } from '../../lib/format';

/** The console's model of an integration: what the list shows, and the JSON for editing. */
export interface Integration {
  name: string;
  type: IntegrationType;
  typeTitle: string;
  state: IntegrationJson['status']['state'];
  lastDelivery: Date | undefined;
  /** 'Never' when nothing was sent yet. */
  lastDeliveryText: string;
  lastError: string;
  pending: number;
  json: IntegrationJson;
}

export const statusColors: Record<Integration['state'], string> = {
  ok: 'green',
  failing: 'red',
  unused: 'gray',
};

export function makeIntegration(json: IntegrationJson): Integration {
  const lastDelivery = parseTimestamp(json.status.lastDelivery);
  return {
    name: json.name,
    type: json.type,
    typeTitle: integrationTitles[json.type],
    state: json.status.state,
    lastDelivery,
    lastDeliveryText: lastDelivery ? formatDateTime(lastDelivery) : 'Never',
    lastError: json.status.lastError,
    pending: json.status.pending,
    json,
  };
}
