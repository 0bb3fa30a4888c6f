import { Avatar, Button, Menu, Text, useMantineColorScheme } from '@mantine/core';
import { IconChevronDown, IconLogout, IconMoon, IconSun } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { NavItem } from '../navItems';
import { useSession } from '../session/SessionGate';
import { useUserContext } from '../userContext';
import { NavIcon } from './navIcons';

/** The first letter of the name, as a person would write it (a whole character, upper case). */
export const initialOf = (name: string) => (Array.from(name.trim())[0] ?? '?').toUpperCase();

/**
 * Who is signed in (an initial avatar and the name), opening the user menu: top-menu features
 * from the registry, the light/dark switch and Logout.
 */
export function UserMenu({ items }: { items: NavItem[] }) {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const session = useSession();
  const { userName } = useUserContext();
  const next = colorScheme === 'dark' ? 'light' : 'dark';
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button
          variant="subtle"
          color="gray"
          px="xs"
          aria-label={`Account: ${userName}`}
          leftSection={
            <Avatar size={28} radius="xl" color="brand" variant="filled" aria-hidden="true">
              {initialOf(userName)}
            </Avatar>
          }
          rightSection={<IconChevronDown size={14} aria-hidden="true" />}
        >
          <Text span size="sm" fw={500} truncate maw={160} visibleFrom="xs">
            {userName}
          </Text>
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Signed in as {userName}</Menu.Label>
        {items.map((item) => (
          <Menu.Item
            key={item.id}
            component={Link}
            to={item.to}
            leftSection={<NavIcon id={item.id} size={16} />}
          >
            {item.title}
          </Menu.Item>
        ))}
        <Menu.Divider />
        <Menu.Item
          onClick={() => setColorScheme(next)}
          leftSection={
            next === 'dark' ? (
              <IconMoon size={16} aria-hidden="true" />
            ) : (
              <IconSun size={16} aria-hidden="true" />
            )
          }
        >
          {next === 'dark' ? 'Switch to dark theme' : 'Switch to light theme'}
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item
          onClick={() => void session.logout()}
          leftSection={<IconLogout size={16} aria-hidden="true" />}
        >
          Logout
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
