import type { IntegrationJson } from '@postern/contracts';

/** `GET /v1/webapi/sites/{clusterId}/integrations` items as the server sends them. */
export const integrationFixtures: IntegrationJson[] = [
  {
    name: 'slack-ops',
    type: 'slack',
    settings: { channel: '#access', host: 'hooks.slack.com' },
    secretsSet: ['url'],
    status: {
      state: 'ok',
      lastDelivery: '2024-03-01T10:00:00Z',
      lastError: '',
      pending: 0,
    },
    createdBy: 'admin',
    created: '2024-02-01T09:00:00Z',
  },
  {
    name: 'audit-hook',
    type: 'webhook',
    settings: { url: 'https://hooks.example.com/postern' },
    secretsSet: ['signingSecret'],
    status: {
      state: 'failing',
      lastDelivery: '2024-03-01T11:00:00Z',
      lastError: 'receiver answered 502 Bad Gateway',
      pending: 2,
    },
    createdBy: 'admin',
    created: '2024-02-02T09:00:00Z',
  },
  {
    name: 'mail',
    type: 'email',
    settings: {
      host: 'smtp.example.com',
      port: 587,
      security: 'starttls',
      username: 'postern',
      from: 'postern@example.com',
      fallbackRecipients: ['secops@example.com'],
    },
    secretsSet: ['password'],
    status: { state: 'unused', lastDelivery: '', lastError: '', pending: 0 },
    createdBy: 'admin',
    created: '2024-02-03T09:00:00Z',
  },
];
