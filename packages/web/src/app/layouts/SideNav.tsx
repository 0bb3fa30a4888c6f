import { NavLink, ScrollArea, Text } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import type { AppNavigation, NavItem } from '../navItems';

export function isActive(item: NavItem, pathname: string): boolean {
  const path = pathname.replace(/\/+$/, '');
  return path === item.to || (!item.exact && path.startsWith(`${item.to}/`));
}

function Heading({ children }: { children: string }) {
  return (
    <Text size="xs" fw={600} c="dimmed" tt="uppercase" px="md" pt="md" pb={4}>
      {children}
    </Text>
  );
}

function Items({ items, pathname }: { items: NavItem[]; pathname: string }) {
  return items.map((item) => (
    <NavLink
      key={item.id}
      component={Link}
      to={item.to}
      label={item.title}
      active={isActive(item, pathname)}
    />
  ));
}

/** Resources first, then Management by section (spec §2), exactly as the registry allows. */
export function SideNav({ nav }: { nav: AppNavigation['sideNav'] }) {
  const { pathname } = useLocation();
  return (
    <ScrollArea component="nav" aria-label="Main navigation">
      {nav.resources.length > 0 && (
        <>
          <Heading>Resources</Heading>
          <Items items={nav.resources} pathname={pathname} />
        </>
      )}
      {nav.management.length > 0 && <Heading>Management</Heading>}
      {nav.management.map(({ section, items }) => (
        <div key={section} role="group" aria-label={section}>
          <Text size="xs" c="dimmed" px="md" pt="xs">
            {section}
          </Text>
          <Items items={items} pathname={pathname} />
        </div>
      ))}
    </ScrollArea>
  );
}
