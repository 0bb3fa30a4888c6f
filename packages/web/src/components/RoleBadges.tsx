import { Badge, Group } from '@mantine/core';

/** Role names as badges, in the order given (Manage Users, Manage Bots). */
export function RoleBadges({ roles }: { roles: readonly string[] }) {
  return (
    <Group gap={4}>
      {roles.map((role) => (
        <Badge key={role} variant="light" tt="none">
          {role}
        </Badge>
      ))}
    </Group>
  );
}
