/**
 * Full page navigations (sign-in, logout, SSO): the server must answer with a fresh page so it
 * can fill or drop the bearer meta tag. Callers go through this object so tests can spy on it
 * (`vi.spyOn(pageLocation, 'assign')`); jsdom cannot navigate.
 */
export const pageLocation = {
  assign(url: string): void {
    window.location.assign(url);
  },
  /** Leaves the page without a history entry (the app launcher: Back does not launch again). */
  replace(url: string): void {
    window.location.replace(url);
  },
  /** The current page as path and search, never the origin. */
  current(): string {
    return `${window.location.pathname}${window.location.search}`;
  },
  origin(): string {
    return window.location.origin;
  },
  /** `https:` or `http:`: how the console itself is served. */
  protocol(): string {
    return window.location.protocol;
  },
};
