import { integrationInputSchema } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { integrationFixtures } from './fixtures';
import {
  emptyIntegrationForm,
  formFromIntegration,
  validateIntegration,
  type IntegrationFormValues,
} from './integrationForm';

const form = (fields: Partial<IntegrationFormValues>) => ({ ...emptyIntegrationForm(), ...fields });

describe('validateIntegration', () => {
  it('builds a Slack body the contract accepts', () => {
    const { errors, input } = validateIntegration(
      'slack',
      form({ name: 'slack-ops', url: 'https://hooks.slack.com/services/T/B/x', channel: '#a' }),
      false,
    );
    expect(errors).toEqual({});
    expect(input).toEqual({
      name: 'slack-ops',
      type: 'slack',
      settings: { url: 'https://hooks.slack.com/services/T/B/x', channel: '#a' },
    });
    expect(integrationInputSchema.safeParse(input).success).toBe(true);
  });

  it('mirrors the schema: name, URL, signing secret length', () => {
    const { errors } = validateIntegration(
      'webhook',
      form({ name: 'Bad Name', url: 'ftp://x', signingSecret: 'short' }),
      false,
    );
    expect(errors).toEqual({
      name: 'Lower-case letters, digits and dashes',
      url: 'Expected an http:// or https:// URL',
      signingSecret: 'At least 16 characters',
    });
  });

  it('needs a URL to create, not to edit (the stored one stays)', () => {
    expect(validateIntegration('mattermost', form({ name: 'mm' }), false).errors).toEqual({
      url: 'Enter the webhook URL',
    });
    const { input } = validateIntegration('mattermost', form({ name: 'mm' }), true);
    expect(input).toEqual({ name: 'mm', type: 'mattermost', settings: { channel: '' } });
  });

  it('checks the e-mail settings and builds them', () => {
    expect(
      validateIntegration('email', form({ name: 'mail', port: '99999' }), false).errors,
    ).toEqual({
      host: 'Enter the SMTP host',
      from: 'Enter the sender address',
      port: 'Enter a port from 1 to 65535',
    });
    const { input } = validateIntegration(
      'email',
      form({
        name: 'mail',
        host: 'smtp.example.com',
        port: '465',
        security: 'tls',
        from: 'postern@example.com',
        password: 'pw',
        fallbackRecipients: 'a@example.com, b@example.com',
      }),
      false,
    );
    expect(input?.settings).toEqual({
      host: 'smtp.example.com',
      port: 465,
      security: 'tls',
      username: '',
      password: 'pw',
      from: 'postern@example.com',
      fallbackRecipients: ['a@example.com', 'b@example.com'],
    });
  });
});

describe('formFromIntegration', () => {
  it('fills the settings in, never a secret', () => {
    const [slack, webhook, mail] = integrationFixtures;
    expect(formFromIntegration(slack!)).toMatchObject({
      name: 'slack-ops',
      url: '',
      channel: '#access',
    });
    expect(formFromIntegration(webhook!)).toMatchObject({
      url: 'https://hooks.example.com/postern',
      signingSecret: '',
    });
    expect(formFromIntegration(mail!)).toMatchObject({
      host: 'smtp.example.com',
      port: '587',
      username: 'postern',
      password: '',
      fallbackRecipients: 'secops@example.com',
    });
    // Even a server that sent one by mistake does not get it into the form.
    expect(
      formFromIntegration({ ...mail!, settings: { ...mail!.settings, password: 'leak' } }).password,
    ).toBe('');
  });
});
