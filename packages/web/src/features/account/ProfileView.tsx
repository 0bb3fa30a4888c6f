import { Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import type { UserContext } from '@postern/contracts';
import type { ReactNode } from 'react';

export type Profile = Pick<UserContext, 'userName' | 'authType' | 'roles' | 'logins'>;

const authTypeLabels: Record<Profile['authType'], string> = {
  local: 'Local user',
  sso: 'Single sign-on user',
};

function Names({ names, none }: { names: string[]; none: string }) {
  if (names.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {none}
      </Text>
    );
  }
  return (
    <Group gap={6}>
      {names.map((name) => (
        <Badge key={name} variant="light" tt="none">
          {name}
        </Badge>
      ))}
    </Group>
  );
}

/** Who the user is to Postern: name, how they sign in, their roles and the logins those allow. */
export function ProfileView({ profile }: { profile: Profile }) {
  const rows: [string, ReactNode][] = [
    ['Username', <Text size="sm">{profile.userName}</Text>],
    ['Authentication', <Text size="sm">{authTypeLabels[profile.authType]}</Text>],
    ['Roles', <Names names={profile.roles} none="No roles" />],
    [
      'Logins',
      <Names
        names={profile.logins}
        none="No logins: ask an administrator to add one to your user or roles."
      />,
    ],
  ];
  return (
    <Stack gap="sm">
      <Title order={3}>Profile</Title>
      <Table variant="vertical" withTableBorder layout="fixed" maw={640}>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th w={160}>{label}</Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
