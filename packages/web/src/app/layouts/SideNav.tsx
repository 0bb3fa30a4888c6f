import { NavLink, ScrollArea, Text } from '@mantine/core';
import { useId } from 'react';
import { Link, useLocation } from 'react-router';
import type { AppNavigation, NavItem } from '../navItems';
import { NavIcon } from './navIcons';

export function isActive(item: NavItem, pathname: string): boolean {
  const path = pathname.replace(/\/+$/, '');
  return path === item.to || (!item.exact && path.startsWith(`${item.to}/`));
}

/**
 * Headings, section names and items all start at the same inset (`md`), so the eye runs down one
 * edge: categories in capitals, sections in bold, items with their icon.
 */
const inset = 'md';

function CategoryHeading({ id, children }: { id: string; children: string }) {
  return (
    <Text id={id} size="xs" fw={600} c="dimmed" tt="uppercase" px={inset} pt="md" pb={4}>
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
      leftSection={<NavIcon id={item.id} />}
      active={isActive(item, pathname)}
      px={inset}
    />
  ));
}

/** Resources first, then Management by section (spec §2), exactly as the registry allows. */
export function SideNav({ nav }: { nav: AppNavigation['sideNav'] }) {
  const { pathname } = useLocation();
  const id = useId();
  return (
    <ScrollArea component="nav" aria-label="Main navigation">
      {nav.resources.length > 0 && (
        <div role="group" aria-labelledby={`${id}-resources`}>
          <CategoryHeading id={`${id}-resources`}>Resources</CategoryHeading>
          <Items items={nav.resources} pathname={pathname} />
        </div>
      )}
      {nav.management.length > 0 && (
        <CategoryHeading id={`${id}-management`}>Management</CategoryHeading>
      )}
      {nav.management.map(({ section, items }) => (
        <div key={section} role="group" aria-label={section}>
          <Text size="xs" fw={600} px={inset} pt="xs" pb={2} data-nav-section>
            {section}
          </Text>
          <Items items={items} pathname={pathname} />
        </div>
      ))}
    </ScrollArea>
  );
}
