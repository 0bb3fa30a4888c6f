import {
  integrationInputSchema,
  type IntegrationInput,
  type IntegrationJson,
  type IntegrationType,
} from '@postern/contracts';

/** Every field of every type's form, as typed; a type uses its own. */
export interface IntegrationFormValues {
  name: string;
  url: string;
  signingSecret: string;
  channel: string;
  host: string;
  port: string;
  security: 'starttls' | 'tls' | 'none';
  username: string;
  password: string;
  from: string;
  /** Addresses, separated by commas or spaces. */
  fallbackRecipients: string;
}

export type IntegrationField = keyof IntegrationFormValues;
export type IntegrationErrors = Partial<Record<IntegrationField, string>>;

/** Fields that hold a secret: never filled in from the server, left out on edit to keep them. */
export const secretFields: Record<IntegrationType, readonly IntegrationField[]> = {
  webhook: ['signingSecret'],
  slack: ['url'],
  mattermost: ['url'],
  email: ['password'],
};

export const emptyIntegrationForm = (): IntegrationFormValues => ({
  name: '',
  url: '',
  signingSecret: '',
  channel: '',
  host: '',
  port: '587',
  security: 'starttls',
  username: '',
  password: '',
  from: '',
  fallbackRecipients: '',
});

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The form of a stored integration, for editing: its settings, and never a secret. */
export function formFromIntegration(json: IntegrationJson): IntegrationFormValues {
  const s = json.settings;
  const form: IntegrationFormValues = {
    ...emptyIntegrationForm(),
    name: json.name,
    url: text(s.url),
    channel: text(s.channel),
    host: text(s.host),
    port: typeof s.port === 'number' ? String(s.port) : '587',
    security: s.security === 'tls' || s.security === 'none' ? s.security : 'starttls',
    username: text(s.username),
    from: text(s.from),
    fallbackRecipients: Array.isArray(s.fallbackRecipients)
      ? s.fallbackRecipients.filter((r) => typeof r === 'string').join(', ')
      : '',
  };
  for (const field of secretFields[json.type]) Object.assign(form, { [field]: '' });
  return form;
}

const splitList = (value: string) =>
  value
    .split(/[\s,]+/)
    .map((v) => v.trim())
    .filter(Boolean);
const orUndefined = (value: string) => (value.trim() === '' ? undefined : value.trim());

/** The API body of the form for a type (empty optional fields left out). */
export function integrationInputOf(
  type: IntegrationType,
  v: IntegrationFormValues,
): IntegrationInput {
  const name = v.name.trim();
  switch (type) {
    case 'webhook':
      return {
        name,
        type,
        settings: { url: orUndefined(v.url), signingSecret: v.signingSecret || undefined },
      };
    case 'slack':
    case 'mattermost':
      return { name, type, settings: { url: orUndefined(v.url), channel: v.channel.trim() } };
    case 'email':
      return {
        name,
        type,
        settings: {
          host: v.host.trim(),
          port: Number(v.port.trim()),
          security: v.security,
          username: v.username,
          password: v.password || undefined,
          from: v.from.trim(),
          fallbackRecipients: splitList(v.fallbackRecipients),
        },
      };
  }
}

const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

/**
 * The server's checks, here first: the fields each type needs (a URL when creating; secrets may
 * stay empty on edit to keep the stored ones), then the contract's schema itself.
 */
export function validateIntegration(
  type: IntegrationType,
  values: IntegrationFormValues,
  editing: boolean,
): { errors: IntegrationErrors; input?: IntegrationInput } {
  const errors: IntegrationErrors = {};
  const need = (field: IntegrationField, message: string) => {
    if (values[field].trim() === '') errors[field] = message;
  };
  need('name', 'Enter a name');
  if (type !== 'email' && !editing) need('url', 'Enter the webhook URL');
  if (type === 'email') {
    need('host', 'Enter the SMTP host');
    need('from', 'Enter the sender address');
    const port = Number(values.port.trim());
    if (!/^\d+$/.test(values.port.trim()) || port < 1 || port > 65535) {
      errors.port = 'Enter a port from 1 to 65535';
    }
  }
  const input = integrationInputOf(type, values);
  const parsed = integrationInputSchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [first, second] = issue.path;
      const field = (first === 'settings' ? second : first) as IntegrationField | undefined;
      if (field && field in values && !errors[field]) errors[field] = sentence(issue.message);
    }
    if (Object.keys(errors).length === 0) errors.name = sentence(parsed.error.issues[0]!.message);
  }
  return Object.keys(errors).length > 0 ? { errors } : { errors, input };
}
