import { Button, Menu, useMantineColorScheme } from '@mantine/core';
import { Link } from 'react-router';
import type { NavItem } from '../navItems';
import { useSession } from '../session/SessionGate';

/** The user menu: top-menu features from the registry, the light/dark switch and Logout. */
export function UserMenu({ items }: { items: NavItem[] }) {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const session = useSession();
  const next = colorScheme === 'dark' ? 'light' : 'dark';
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="subtle">Account</Button>
      </Menu.Target>
      <Menu.Dropdown>
        {items.map((item) => (
          <Menu.Item key={item.id} component={Link} to={item.to}>
            {item.title}
          </Menu.Item>
        ))}
        <Menu.Divider />
        <Menu.Item onClick={() => setColorScheme(next)}>
          {next === 'dark' ? 'Switch to dark theme' : 'Switch to light theme'}
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item onClick={() => void session.logout()}>Logout</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
