import { Button, Menu, useMantineColorScheme } from '@mantine/core';
import { Link } from 'react-router';
import type { NavItem } from '../navItems';

/** The user menu: top-menu features from the registry and the light/dark switch. */
export function UserMenu({ items }: { items: NavItem[] }) {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
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
      </Menu.Dropdown>
    </Menu>
  );
}
