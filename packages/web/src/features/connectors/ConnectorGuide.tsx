import { Code, List, Stack, Text } from '@mantine/core';
import { ssoPaths, type ConnectorKind } from '@postern/contracts';

interface Props {
  kind: ConnectorKind;
  /** The connector's name as typed so far (SAML URLs carry it). */
  name: string | undefined;
  /** This proxy as the provider reaches it, e.g. `https://proxy.example.com`. */
  origin: string;
}

/** What to register at the provider: the URLs it sends people back to. */
export function ConnectorGuide({ kind, name, origin }: Props) {
  return (
    <Stack gap={4} aria-label="Setup guide" role="region">
      <Text size="sm" fw={600}>
        At the provider
      </Text>
      {kind === 'saml' ? (
        <SamlSteps name={name} origin={origin} />
      ) : (
        <Text size="sm">
          {kind === 'oidc'
            ? 'Register this redirect URL for the application (client) at your OpenID provider, and use the same value as redirect_url:'
            : 'Set this as the Authorization callback URL of your GitHub OAuth app, and use the same value as redirect_url:'}{' '}
          <Url value={`${origin}${ssoPaths.callback(kind)}`} />
        </Text>
      )}
    </Stack>
  );
}

function SamlSteps({ name, origin }: { name: string | undefined; origin: string }) {
  if (!name)
    return <Text size="sm">Give the connector a name (metadata.name) to see its URLs.</Text>;
  return (
    <List size="sm" spacing={2}>
      <List.Item>
        Assertion consumer service (ACS) URL, also the acs field:{' '}
        <Url value={`${origin}${ssoPaths.samlAcs(name)}`} />
      </List.Item>
      <List.Item>
        This proxy&apos;s service provider metadata, for providers that import it:{' '}
        <Url value={`${origin}${ssoPaths.samlMetadata(name)}`} />
      </List.Item>
    </List>
  );
}

const Url = ({ value }: { value: string }) => (
  <Code style={{ overflowWrap: 'anywhere' }}>{value}</Code>
);
