import { renderHook, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageLocation } from '../../lib/pageLocation';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderWithTheme } from '../../test/render';
import { renderPage } from '../../test/renderPage';
import { AppLauncherPage } from './AppLauncherPage';
import { AppLauncherView } from './AppLauncherView';
import {
  appRedirectTarget,
  launchErrorMessage,
  launchRequest,
  mfaCancelledMessage,
  refusedRedirectMessage,
  useAppLauncher,
  type LaunchState,
} from './useAppLauncher';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const launcherPattern = '/web/launch/:fqdn/:clusterId?/:publicAddr?/:arn?';

const answerFor = (fqdn: string, redirectUrl = `https://${fqdn}/x-postern-auth?state=s1`) => ({
  fqdn,
  redirectUrl,
  value: 's1',
});

/** The server's side of the launch: records each call, answers with `respond`. */
function fakeServer(respond: () => Response) {
  const calls: { method: string; url: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      calls.push({
        method: init?.method ?? 'GET',
        url,
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      });
      return respond();
    }),
  );
  return calls;
}

function launch(url: string, protocol = 'https:') {
  const replace = vi.spyOn(pageLocation, 'replace').mockImplementation(() => undefined);
  vi.spyOn(pageLocation, 'protocol').mockReturnValue(protocol);
  renderPage(<AppLauncherPage />, { path: launcherPattern, url });
  return replace;
}

describe('AppLauncherPage', () => {
  it('posts the session for the app and leaves for its address, replacing the launcher', async () => {
    const answer = answerFor('grafana.example.com');
    const calls = fakeServer(() => jsonResponse(answer));
    const replace = launch('/web/launch/grafana.example.com/root/grafana.example.com');
    expect(await screen.findByText('Launching grafana.example.com…')).toBeTruthy();
    await waitFor(() => expect(replace).toHaveBeenCalledWith(answer.redirectUrl));
    expect(replace).toHaveBeenCalledTimes(1);
    expect(calls).toEqual([
      {
        method: 'POST',
        url: '/v1/webapi/sessions/app',
        body: {
          fqdn: 'grafana.example.com',
          cluster_name: 'root',
          public_addr: 'grafana.example.com',
          arn: '',
        },
      },
    ]);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('asks for the per-session MFA check the server wants, then launches with its answer', async () => {
    const answer = answerFor('grafana.example.com');
    const replies = [
      () =>
        errorResponse(
          403,
          'your roles require an MFA check for each session (require_session_mfa): pass one for this application first',
          'mfa_required',
        ),
      () => jsonResponse({ totp_challenge: true }),
      () => jsonResponse(answer),
    ];
    const calls = fakeServer(() => replies.shift()!());
    const replace = launch('/web/launch/grafana.example.com');
    const dialog = await screen.findByRole('dialog', { name: 'Verify it is you' });
    expect(dialog).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Authenticator code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(replace).toHaveBeenCalledWith(answer.redirectUrl));
    expect(calls.map((call) => [call.url, call.body])).toEqual([
      ['/v1/webapi/sessions/app', expect.not.objectContaining({ mfa_response: expect.anything() })],
      ['/v1/webapi/mfa/session/challenge', { resource: 'app:grafana.example.com' }],
      [
        '/v1/webapi/sessions/app',
        expect.objectContaining({ mfa_response: { totp_code: '123456' } }),
      ],
    ]);
  });

  it('says so when the MFA check is cancelled, and launches nothing', async () => {
    const replies = [
      () => errorResponse(403, 'needs a check', 'mfa_required'),
      () => jsonResponse({ totp_challenge: true }),
    ];
    const calls = fakeServer(() => replies.shift()!());
    const replace = launch('/web/launch/grafana.example.com');
    await screen.findByRole('dialog', { name: 'Verify it is you' });
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect((await screen.findByRole('alert')).textContent).toContain(mfaCancelledMessage);
    expect(calls).toHaveLength(2);
    expect(replace).not.toHaveBeenCalled();
  });

  it('sends empty strings for the parts the route leaves out, and the ARN when given', async () => {
    const calls = fakeServer(() => jsonResponse(answerFor('grafana.example.com')));
    launch('/web/launch/grafana.example.com');
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]?.body).toEqual({
      fqdn: 'grafana.example.com',
      cluster_name: '',
      public_addr: '',
      arn: '',
    });
    vi.unstubAllGlobals();
    const more = fakeServer(() => jsonResponse(answerFor('aws.example.com')));
    const arn = 'arn:aws:iam::123456789012:role/ReadOnly';
    launch(`/web/launch/aws.example.com/root/aws.example.com/${encodeURIComponent(arn)}`);
    await waitFor(() => expect(more).toHaveLength(1));
    expect(more[0]?.body).toMatchObject({ arn });
  });

  it('passes on where in the app to land, when the app’s host sent the visitor here', async () => {
    const calls = fakeServer(() => jsonResponse(answerFor('grafana.example.com')));
    const path = '/d/abc?orgId=1&from=now-1h';
    launch(
      `/web/launch/grafana.example.com/root/grafana.example.com?path=${encodeURIComponent(path)}`,
    );
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]?.body).toEqual({
      fqdn: 'grafana.example.com',
      cluster_name: 'root',
      public_addr: 'grafana.example.com',
      arn: '',
      path,
    });
  });

  it('refuses to leave for a host other than the app’s', async () => {
    fakeServer(() =>
      jsonResponse(answerFor('grafana.example.com', 'https://evil.example.net/?state=s1')),
    );
    const replace = launch('/web/launch/grafana.example.com/root/grafana.example.com');
    expect((await screen.findByRole('alert')).textContent).toContain(refusedRedirectMessage);
    expect(replace).not.toHaveBeenCalled();
  });

  it('refuses http: while the console itself is served over https:', async () => {
    fakeServer(() =>
      jsonResponse(answerFor('grafana.example.com', 'http://grafana.example.com/x?state=s1')),
    );
    const replace = launch('/web/launch/grafana.example.com/root/grafana.example.com');
    expect((await screen.findByRole('alert')).textContent).toContain(refusedRedirectMessage);
    expect(replace).not.toHaveBeenCalled();
  });

  it('follows http: when the console is served over http: too', async () => {
    const answer = answerFor('grafana.localhost', 'http://grafana.localhost:3080/x?state=s1');
    fakeServer(() => jsonResponse(answer));
    const replace = launch('/web/launch/grafana.localhost/root/grafana.localhost', 'http:');
    await waitFor(() => expect(replace).toHaveBeenCalledWith(answer.redirectUrl));
  });

  it.each([
    [403, 'access denied', 'You do not have access to this application.'],
    [404, 'app "x" is not found', 'Application not found.'],
    [500, 'the agent did not answer', 'the agent did not answer'],
  ])('a %i says so, with a link back to the Applications page', async (status, message, shown) => {
    fakeServer(() => errorResponse(status, message));
    const replace = launch('/web/launch/grafana.example.com/leaf-a/grafana.example.com');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(shown);
    expect(alert.textContent).toContain('Could not launch grafana.example.com');
    expect(screen.getByRole('link', { name: 'Back to Applications' }).getAttribute('href')).toBe(
      '/web/cluster/leaf-a/apps',
    );
    expect(replace).not.toHaveBeenCalled();
  });

  it('without a cluster in the route, links back to the proxy cluster’s applications', async () => {
    fakeServer(() => errorResponse(404, 'not found'));
    launch('/web/launch/grafana.example.com');
    await screen.findByRole('alert');
    expect(screen.getByRole('link', { name: 'Back to Applications' }).getAttribute('href')).toBe(
      '/web/cluster/localhost/apps',
    );
  });
});

describe('useAppLauncher', () => {
  it('launches once, even when StrictMode runs its effect twice', async () => {
    const answer = answerFor('grafana.example.com');
    const calls = fakeServer(() => jsonResponse(answer));
    const navigate = vi.fn();
    const deps = { navigate, protocol: () => 'https:' };
    const { result, rerender } = renderHook(
      () => useAppLauncher({ fqdn: 'grafana.example.com', clusterId: 'root' }, { ...deps }),
      { reactStrictMode: true },
    );
    expect(result.current).toEqual({ status: 'launching' });
    await waitFor(() => expect(navigate).toHaveBeenCalledWith(answer.redirectUrl));
    // New deps on every render do not launch again either.
    rerender();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toHaveLength(1);
    expect(navigate).toHaveBeenCalledTimes(1);
  });

  it('launches again when the address changes, and ignores the old answer', async () => {
    let answerOld: (r: Response) => void = () => undefined;
    const responses = [
      new Promise<Response>((resolve) => (answerOld = resolve)),
      Promise.resolve(jsonResponse({ error: { message: 'gone', code: 'not_found' } }, 404)),
    ];
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => responses.shift()!),
    );
    const navigate = vi.fn();
    const deps = { navigate, protocol: () => 'https:' };
    const { result, rerender } = renderHook(({ fqdn }) => useAppLauncher({ fqdn }, deps), {
      initialProps: { fqdn: 'old.example.com' },
    });
    rerender({ fqdn: 'new.example.com' });
    await waitFor(() =>
      expect(result.current).toEqual({ status: 'error', message: 'Application not found.' }),
    );
    answerOld(jsonResponse(answerFor('old.example.com')));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(navigate).not.toHaveBeenCalled();
    expect(result.current.status).toBe('error');
  });
});

describe('AppLauncherView', () => {
  const view = (state: LaunchState) =>
    renderWithTheme(
      <MemoryRouter>
        <AppLauncherView fqdn="grafana.example.com" state={state} appsHref="/web/cluster/c/apps" />
      </MemoryRouter>,
    );

  it('says which app it is launching while it waits', () => {
    view({ status: 'launching' });
    expect(screen.getByRole('status').textContent).toBe('Launching grafana.example.com…');
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('shows why a launch failed, and the way back', () => {
    view({ status: 'error', message: 'Application not found.' });
    expect(screen.getByRole('alert').textContent).toContain('Application not found.');
    expect(screen.getByRole('link', { name: 'Back to Applications' })).toBeTruthy();
    expect(screen.queryByRole('status')).toBeNull();
  });
});

describe('launch helpers', () => {
  it('launchRequest fills the parts the route left out with empty strings', () => {
    expect(launchRequest({ fqdn: 'a.example.com', clusterId: 'root' })).toEqual({
      fqdn: 'a.example.com',
      cluster_name: 'root',
      public_addr: '',
      arn: '',
    });
  });

  it.each([
    ['/dashboards?x=1', '/dashboards?x=1'],
    ['/', '/'],
    ['//evil.example.net/x', undefined],
    ['/\\evil.example.net', undefined],
    ['https://evil.example.net/', undefined],
    ['dashboards', undefined],
    [`/${'a'.repeat(4096)}`, undefined],
  ])('launchRequest sends the landing path %s as %s', (path, sent) => {
    expect(launchRequest({ fqdn: 'a.example.com', path }).path).toBe(sent);
  });

  it.each([
    ['https://a.example.com/x-postern-auth?state=1', 'https:', true],
    ['https://A.Example.COM:8443/x?state=1', 'https:', true],
    ['https://user@a.example.com/x', 'https:', false],
    ['https://a.example.com:pw@a.example.com/x', 'https:', false],
    ['http://a.example.com/x', 'https:', false],
    ['http://a.example.com/x', 'http:', true],
    ['https://b.example.com/x', 'https:', false],
    ['https://a.example.com.evil.net/x', 'https:', false],
    ['https://evil.net/a.example.com', 'https:', false],
    ['https://evil.net\\@a.example.com/x', 'https:', false],
    ['javascript:alert(1)//a.example.com', 'https:', false],
    ['//a.example.com/x', 'https:', false],
    ['/x-postern-auth', 'https:', false],
    ['not a url', 'https:', false],
    ['ftp://a.example.com/x', 'http:', false],
  ])('%s (console on %s) is followed: %s', (redirectUrl, protocol, followed) => {
    const target = appRedirectTarget({ fqdn: 'a.example.com', redirectUrl }, protocol);
    expect(target !== undefined).toBe(followed);
  });

  it('follows the URL as parsed, and nothing when the answer names no host', () => {
    expect(
      appRedirectTarget(
        { fqdn: 'a.example.com', redirectUrl: 'https://A.example.com/x' },
        'https:',
      ),
    ).toBe('https://a.example.com/x');
    expect(appRedirectTarget({ fqdn: '', redirectUrl: 'https:///x' }, 'https:')).toBeUndefined();
  });

  it('launchErrorMessage passes other errors through', () => {
    expect(launchErrorMessage(new Error('boom'))).toBe('boom');
  });
});
