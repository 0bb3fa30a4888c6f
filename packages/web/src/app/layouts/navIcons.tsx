import {
  IconAffiliate,
  IconRobot,
  IconApps,
  IconCirclePlus,
  IconDatabase,
  IconDeviceDesktop,
  IconHelp,
  IconKey,
  IconLayoutGrid,
  IconListSearch,
  IconLock,
  IconPlugConnected,
  IconPlus,
  IconPoint,
  IconPuzzle,
  IconServer,
  IconSettings,
  IconSparkles,
  IconSteeringWheel,
  IconTerminal2,
  IconTicket,
  IconTopologyStar3,
  IconUser,
  IconUserShield,
  IconUsers,
  IconVideo,
  type Icon,
} from '@tabler/icons-react';

/**
 * One icon per navigation item, by feature id (src/app/features.ts). Kept apart from the registry
 * so the icons load with the main layout, not with the login route.
 */
export const navIcons: Record<string, Icon> = {
  unifiedResources: IconLayoutGrid,
  servers: IconServer,
  applications: IconApps,
  kubernetes: IconSteeringWheel,
  databases: IconDatabase,
  desktops: IconDeviceDesktop,
  activeSessions: IconTerminal2,
  accessRequests: IconKey,
  assist: IconSparkles,
  users: IconUsers,
  roles: IconUserShield,
  authConnectors: IconPlugConnected,
  locks: IconLock,
  bots: IconRobot,
  // Not IconKey: Access Requests has it.
  joinTokens: IconTicket,
  discover: IconCirclePlus,
  integrations: IconPuzzle,
  integrationEnroll: IconPlus,
  recordings: IconVideo,
  audit: IconListSearch,
  clusters: IconTopologyStar3,
  trust: IconAffiliate,
  account: IconUser,
  settings: IconSettings,
  support: IconHelp,
};

/** The item's icon at the size the navigation uses; a neutral dot for an item without one. */
export function NavIcon({ id, size = 18 }: { id: string; size?: number }) {
  const ItemIcon = navIcons[id] ?? IconPoint;
  return <ItemIcon size={size} stroke={1.6} aria-hidden="true" />;
}
