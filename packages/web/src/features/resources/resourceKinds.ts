import {
  IconApps,
  IconDatabase,
  IconDeviceDesktop,
  IconServer,
  IconSteeringWheel,
  type Icon,
} from '@tabler/icons-react';
import type { UnifiedResourceKind } from '@postern/contracts';
import type { FeatureFlag } from '../../app/featureFlags';

interface KindInfo {
  /** A row's kind, e.g. Server. */
  label: string;
  /** The kind's filter, the name of its own page, e.g. Servers. */
  plural: string;
  /** The kind's icon in the navigation. */
  icon: Icon;
  /** The flag of the kind's own page: whether the user may list this kind. */
  flag: FeatureFlag;
}

export const resourceKinds: Record<UnifiedResourceKind, KindInfo> = {
  node: { label: 'Server', plural: 'Servers', icon: IconServer, flag: 'nodes' },
  app: { label: 'Application', plural: 'Applications', icon: IconApps, flag: 'applications' },
  db: { label: 'Database', plural: 'Databases', icon: IconDatabase, flag: 'databases' },
  kube_cluster: {
    label: 'Kubernetes',
    plural: 'Kubernetes',
    icon: IconSteeringWheel,
    flag: 'kubernetes',
  },
  windows_desktop: {
    label: 'Desktop',
    plural: 'Desktops',
    icon: IconDeviceDesktop,
    flag: 'desktops',
  },
};
