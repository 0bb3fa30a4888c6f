/**
 * Every web API path, in one place, used by the server to register routes and by the console to
 * call them. Builders encode parameters so a name can never break out of its path segment.
 */
export const apiPrefix = '/v1/webapi';

const seg = (value: string) => encodeURIComponent(value);

export const apiPaths = {
  ping: `${apiPrefix}/ping`,
  sites: `${apiPrefix}/sites`,
  capture: `${apiPrefix}/capture`,
  /** Route patterns (Fastify syntax) for the server. */
  patterns: {
    eventsSearch: `${apiPrefix}/sites/:clusterId/events/search`,
    eventsSearchSessions: `${apiPrefix}/sites/:clusterId/events/search/sessions`,
  },
  eventsSearch: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/events/search`,
  eventsSearchSessions: (clusterId: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/events/search/sessions`,
} as const;

/** Paths outside the API: the console and its configuration script. */
export const webPaths = {
  root: '/web',
  configScript: '/web/config.js',
  assets: '/web/assets/',
} as const;

/** `:clusterId` may be this literal, meaning the cluster that serves the request. */
export const currentClusterAlias = '-current-';
