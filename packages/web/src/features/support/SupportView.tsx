import { Anchor, Card, Code, List, Stack, Table, Text, Title } from '@mantine/core';
import { AttemptView } from '../../components/AttemptView';
import type { Attempt } from '../../lib/attempt';
import type { SupportLink } from './supportLinks';
import type { SupportInfo } from './useSupport';

interface Props {
  attempt: Attempt<SupportInfo>;
  onRetry: () => void;
  links: readonly SupportLink[];
}

function ClusterInfo({ info }: { info: SupportInfo }) {
  const rows: [string, string][] = [
    ['Cluster name', info.clusterName],
    ['Server version', info.serverVersion],
    ['Public SSH address', info.sshPublicAddr],
  ];
  return (
    <Stack gap="sm">
      <Table variant="vertical" withTableBorder>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th w={200}>{label}</Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="sm">
        Connect with OpenSSH through the proxy:{' '}
        <Code>{`ssh -J <user>@${info.sshPublicAddr} <login>@<server>`}</Code>
      </Text>
    </Stack>
  );
}

/** Help & Support: a pure view of the cluster's identity and a list of references. */
export function SupportView({ attempt, onRetry, links }: Props) {
  return (
    <Stack gap="lg">
      <Title order={2}>Help & Support</Title>
      <Card withBorder>
        <Title order={3} size="h5" mb="sm">
          Cluster Information
        </Title>
        <AttemptView attempt={attempt} onRetry={onRetry}>
          {(info) => <ClusterInfo info={info} />}
        </AttemptView>
      </Card>
      <Card withBorder>
        <Title order={3} size="h5" mb="sm">
          Resources
        </Title>
        <List spacing="xs" aria-label="Resources">
          {links.map((link) => (
            <List.Item key={link.href}>
              <Anchor href={link.href} target="_blank" rel="noopener noreferrer">
                {link.title}
              </Anchor>
            </List.Item>
          ))}
        </List>
      </Card>
    </Stack>
  );
}
