import type { Feature, Section } from './features';
import { categories, isImplemented, sections } from './features';
import type { FeatureFlags } from './featureFlags';
import { fillPattern, routeTable } from './routes';

/** Navigation lists (spec §3 "Navigation lists: sideNav, topNav, topMenu"), built from features. */
export interface NavItem {
  id: string;
  title: string;
  to: string;
  /** Non-exact items stay highlighted on their sub-paths. */
  exact: boolean;
  /** false: never where `/web` or the category's top-bar link lands (see `Feature.landing`). */
  landing?: false;
}

export interface AppNavigation {
  sideNav: {
    resources: NavItem[];
    management: { section: Section; items: NavItem[] }[];
  };
  /** One entry per category that has items, linking to its first item. */
  topNav: NavItem[];
  topMenu: NavItem[];
}

export const isAllowed = (feature: Feature, flags: FeatureFlags) =>
  feature.flag === 'always' || flags[feature.flag];

const endsInOptionalParam = /\/:[^/]+\?$/;

function toItem(feature: Feature, clusterId: string): NavItem {
  const route: { path: string; exact?: boolean } = routeTable[feature.route];
  return {
    id: feature.id,
    title: feature.title,
    // Cluster-scoped links take the cluster id; other patterns ignore it.
    to: fillPattern(route.path, { clusterId }),
    // A route ending in an optional parameter (`/web/assist/:conversationId?`) is one page with
    // or without it: its item stays highlighted on the longer paths.
    exact: route.exact !== false && !endsInOptionalParam.test(route.path),
    ...(feature.landing === false && { landing: false as const }),
  };
}

const landsHere = (item: NavItem) => item.landing !== false;

export function buildNavigation(
  allFeatures: readonly Feature[],
  flags: FeatureFlags,
  clusterId: string,
): AppNavigation {
  const shown = allFeatures.filter((f) => isImplemented(f) && isAllowed(f, flags));
  const items = (keep: (f: Feature) => boolean) =>
    shown.filter(keep).map((f) => toItem(f, clusterId));

  const resources = items(
    (f) => f.placement.nav === 'side' && f.placement.category === 'Resources',
  );
  const management = sections
    .map((section) => ({
      section,
      items: items(
        (f) =>
          f.placement.nav === 'side' && 'section' in f.placement && f.placement.section === section,
      ),
    }))
    .filter((group) => group.items.length > 0);

  const firstOf = {
    Resources: resources.find(landsHere),
    Management: management[0]?.items.find(landsHere),
  };
  const topNav = categories.flatMap((category) => {
    const first = firstOf[category];
    return first ? [{ id: category, title: category, to: first.to, exact: false }] : [];
  });

  return {
    sideNav: { resources, management },
    topNav,
    topMenu: items((f) => f.placement.nav === 'topMenu'),
  };
}

/**
 * Where `/web` lands: the first side-nav item (of those that may be landed on), else Help &
 * Support (open to everyone).
 */
export function landingPath(nav: AppNavigation): string {
  const first =
    nav.sideNav.resources.find(landsHere) ??
    nav.sideNav.management.flatMap((group) => group.items).find(landsHere);
  return first?.to ?? routeTable.support.path;
}
