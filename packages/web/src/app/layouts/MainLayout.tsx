import { AppShell } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMemo } from 'react';
import { useParams } from 'react-router';
import { ClusterAlertsBar } from '../../features/alerts/ClusterAlertsBar';
import { layout } from '../../theme/constants';
import { useClientConfig } from '../clientConfig';
import { features } from '../features';
import { useFeatureFlags } from '../featureFlagsContext';
import { buildNavigation } from '../navItems';
import { RequestOnlyGuard } from '../RequestOnlyGuard';
import { PageFrame } from './PageFrame';
import { SideNav } from './SideNav';
import { TopBar } from './TopBar';

/** The frame of every non-full-page private route: side nav (240 px), top bar, page. */
export default function MainLayout() {
  const flags = useFeatureFlags();
  const { proxyCluster } = useClientConfig();
  // Cluster-scoped links follow the cluster in the URL, else the root cluster.
  const clusterId = useParams().clusterId ?? proxyCluster;
  const nav = useMemo(() => buildNavigation(features, flags, clusterId), [flags, clusterId]);
  const [opened, { toggle }] = useDisclosure(false);

  return (
    <AppShell
      header={{ height: layout.topBarHeight }}
      navbar={{ width: layout.sideNavWidth, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="lg"
    >
      <AppShell.Header>
        <TopBar nav={nav} navOpened={opened} onToggleNav={toggle} />
      </AppShell.Header>
      <AppShell.Navbar>
        <SideNav nav={nav.sideNav} />
      </AppShell.Navbar>
      <AppShell.Main>
        <ClusterAlertsBar />
        <RequestOnlyGuard>
          <PageFrame />
        </RequestOnlyGuard>
      </AppShell.Main>
    </AppShell>
  );
}
