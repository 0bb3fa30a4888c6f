import type { AuthConfig, AuthProvider } from '@postern/contracts';

/** Spec §4: passwordless if the local connector is named so; else local for local auth; else SSO. */
export type AuthMethodKind = 'passwordless' | 'local' | 'sso';

export function primaryAuthType(auth: AuthConfig): AuthMethodKind {
  if (auth.localConnectorName === 'passwordless') return 'passwordless';
  if (auth.authType === 'local') return 'local';
  return 'sso';
}

/**
 * The sign-in methods this cluster offers, primary first. Local and passwordless sign-in need
 * local auth; passwordless also needs `allowPasswordless`, unless it is the primary method.
 */
export function signInMethods(auth: AuthConfig): {
  primary: AuthMethodKind | undefined;
  others: AuthMethodKind[];
} {
  const primary = primaryAuthType(auth);
  const offered: Record<AuthMethodKind, boolean> = {
    local: auth.localAuthEnabled,
    passwordless: auth.localAuthEnabled && (auth.allowPasswordless || primary === 'passwordless'),
    sso: auth.providers.length > 0,
  };
  const order: AuthMethodKind[] = [primary, 'local', 'passwordless', 'sso'];
  const available = [...new Set(order)].filter((kind) => offered[kind]);
  return { primary: available[0], others: available.slice(1) };
}

/**
 * A provider's sign-in URL. The server gives either a template with `:providerName` and
 * `:redirect` (webapi notes §GRV_CONFIG) or a URL that ends ready for the redirect
 * (`…&redirect_url=`); both get the same-origin path the user was going to, encoded. A path, not
 * an absolute URL: the server only follows redirects on its own origin (contracts `ssoPaths`).
 */
export function providerLoginUrl(provider: AuthProvider, redirectPath: string) {
  const redirect = encodeURIComponent(redirectPath);
  if (!provider.url.includes(':redirect')) return `${provider.url}${redirect}`;
  return provider.url
    .split(':providerName')
    .join(encodeURIComponent(provider.name))
    .split(':redirect')
    .join(redirect);
}

export const providerLabel = (provider: AuthProvider) =>
  `Sign in with ${provider.displayName || provider.name}`;
