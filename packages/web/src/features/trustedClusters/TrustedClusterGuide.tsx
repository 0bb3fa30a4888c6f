import { Code, List, Stack, Text } from '@mantine/core';

/**
 * The three steps of joining a root cluster. The token and the address come from the root, so
 * the guide says where to get them before the admin meets the empty fields in the YAML.
 */
export function TrustedClusterGuide() {
  return (
    <Stack gap={4} aria-label="Setup guide" role="region">
      <Text size="sm" fw={600}>
        Connecting to a root cluster
      </Text>
      <List type="ordered" size="sm" spacing={2}>
        <List.Item>
          On the root cluster, make a join token:{' '}
          <Code>postern tokens add --type trusted_cluster</Code>
        </List.Item>
        <List.Item>
          Paste it here as <Code>token</Code>, set <Code>web_proxy_addr</Code> to the root&apos;s
          proxy (<Code>host:port</Code>) and <Code>metadata.name</Code> to the root cluster&apos;s
          name.
        </List.Item>
        <List.Item>
          Map the root&apos;s roles to this cluster&apos;s: in each <Code>role_map</Code> line,
          users holding the <Code>remote</Code> role get the <Code>local</Code> roles here.{' '}
          <Code>remote</Code> may be a role name, <Code>*</Code>, a glob or a <Code>^regex$</Code>.
        </List.Item>
      </List>
    </Stack>
  );
}
