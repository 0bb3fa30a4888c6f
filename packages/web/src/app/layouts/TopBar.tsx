import { Burger, Button, Group, Title } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import type { AppNavigation, NavItem } from '../navItems';
import { useRouteTitle } from '../routeTitle';
import { isActive } from './SideNav';
import { AssumedRoles } from './AssumedRoles';
import { UserMenu } from './UserMenu';
import { ClusterSwitcher } from '../../features/clusters/ClusterSwitcher';

interface Props {
  nav: AppNavigation;
  navOpened: boolean;
  onToggleNav: () => void;
}

/** Page title (with the cluster for cluster-scoped pages), the categories, and the user menu. */
export function TopBar({ nav, navOpened, onToggleNav }: Props) {
  const { title, clusterId } = useRouteTitle();
  const { pathname } = useLocation();
  // A category is active when one of its side-nav items is (topNav ids are category names).
  const inCategory: Record<string, NavItem[]> = {
    Resources: nav.sideNav.resources,
    Management: nav.sideNav.management.flatMap((group) => group.items),
  };
  const isCategoryActive = (id: string) => inCategory[id]?.some((i) => isActive(i, pathname));
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        <Burger
          opened={navOpened}
          onClick={onToggleNav}
          hiddenFrom="sm"
          size="sm"
          aria-label="Toggle navigation"
        />
        {clusterId && <ClusterSwitcher clusterId={clusterId} />}
        <Title order={3} size="h4">
          {title}
        </Title>
      </Group>
      <Group gap="xs" wrap="nowrap">
        <AssumedRoles />
        <Group gap="xs" wrap="nowrap" component="nav" aria-label="Categories" visibleFrom="sm">
          {nav.topNav.map((item) => (
            <Button
              key={item.id}
              component={Link}
              to={item.to}
              variant={isCategoryActive(item.id) ? 'light' : 'subtle'}
            >
              {item.title}
            </Button>
          ))}
        </Group>
        <UserMenu items={nav.topMenu} />
      </Group>
    </Group>
  );
}
