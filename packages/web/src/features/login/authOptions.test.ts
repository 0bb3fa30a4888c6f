import { describe, expect, it } from 'vitest';
import { configWithAuth } from '../../test/authConfig';
import { primaryAuthType, providerLabel, providerLoginUrl, signInMethods } from './authOptions';

const github = {
  name: 'github',
  displayName: 'GitHub',
  type: 'github' as const,
  url: '/v1/webapi/github/login/web?connector_id=:providerName&redirect_url=:redirect',
};
const auth = (over: Parameters<typeof configWithAuth>[0]) => configWithAuth(over).auth;

describe('primary auth type (spec §4)', () => {
  it('is passwordless when the local connector is named passwordless, whatever authType says', () => {
    expect(primaryAuthType(auth({ localConnectorName: 'passwordless', authType: 'github' }))).toBe(
      'passwordless',
    );
  });

  it('is local for local auth, and sso otherwise', () => {
    expect(primaryAuthType(auth({ authType: 'local' }))).toBe('local');
    expect(primaryAuthType(auth({ authType: 'oidc' }))).toBe('sso');
    expect(primaryAuthType(auth({ authType: 'saml' }))).toBe('sso');
  });
});

describe('sign-in methods', () => {
  it('puts the primary first and offers the rest', () => {
    expect(signInMethods(auth({ allowPasswordless: true, providers: [github] }))).toEqual({
      primary: 'local',
      others: ['passwordless', 'sso'],
    });
    expect(
      signInMethods(auth({ authType: 'github', allowPasswordless: true, providers: [github] })),
    ).toEqual({ primary: 'sso', others: ['local', 'passwordless'] });
    expect(signInMethods(auth({ localConnectorName: 'passwordless' }))).toEqual({
      primary: 'passwordless',
      others: ['local'],
    });
  });

  it('leaves out what is not enabled', () => {
    expect(signInMethods(auth({}))).toEqual({ primary: 'local', others: [] });
    expect(
      signInMethods(
        auth({ localAuthEnabled: false, allowPasswordless: true, providers: [github] }),
      ),
    ).toEqual({ primary: 'sso', others: [] });
    // SSO as primary without providers falls back to local sign-in.
    expect(signInMethods(auth({ authType: 'oidc' }))).toEqual({ primary: 'local', others: [] });
  });
});

describe('provider links', () => {
  it('fill :providerName and :redirect in a template, each encoded', () => {
    expect(providerLoginUrl(github, '/web/clusters?a=1')).toBe(
      '/v1/webapi/github/login/web?connector_id=github&redirect_url=' +
        encodeURIComponent('/web/clusters?a=1'),
    );
  });

  it('append the encoded redirect to a URL that ends ready for it', () => {
    const okta = {
      name: 'okta',
      type: 'saml' as const,
      url: '/v1/webapi/saml/login/web?connector_id=okta&redirect_url=',
    };
    expect(providerLoginUrl(okta, '/web/users?q=a&b')).toBe(
      '/v1/webapi/saml/login/web?connector_id=okta&redirect_url=%2Fweb%2Fusers%3Fq%3Da%26b',
    );
  });

  it('name the button by display name, else by name', () => {
    expect(providerLabel(github)).toBe('Sign in with GitHub');
    expect(providerLabel({ ...github, displayName: undefined })).toBe('Sign in with github');
  });
});
