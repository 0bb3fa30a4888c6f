import { emptyAcl, terminalMessageTypes as T, type UserAcl } from '@postern/contracts';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { presetAcls } from '../../test/userContexts';
import {
  fakeSocketsPerTest,
  fakeXtermPerTest,
  paramsOf,
  renderSignedIn,
} from '../console/terminalPage.testkit';
import { isTraceparent } from '../console/tty/traceparent';

// Exec in browser's page: the server console's terminal, on the Kubernetes cluster's exec socket.

// xterm does not render in jsdom: the page gets a fake terminal instead.
vi.mock('../console/terminalEngine', async (original) =>
  (await import('../console/fakeEngine')).withFakeXterm(original),
);
const engines = fakeXtermPerTest();

const fakeSockets = fakeSocketsPerTest();
const sockets = fakeSockets.sockets;
const renderExec = (path: string, acl: UserAcl = presetAcls.access) => renderSignedIn(path, acl);

const firstSocket = () => fakeSockets.nth(1);

describe('the Kubernetes exec page', () => {
  it('opens the cluster’s exec socket on the namespace, pod, container and command of its URL', async () => {
    renderExec('/web/cluster/root/kubernetes/prod/exec/shop/web-7d4f9/nginx?command=bash+-l');
    expect(
      await screen.findByRole('heading', { name: 'Exec in shop/web-7d4f9', level: 1 }),
    ).toBeTruthy();
    expect(screen.getByLabelText('Kubernetes cluster').textContent).toBe('prod');
    expect(screen.getByLabelText('Container').textContent).toBe('nginx');
    expect(screen.getByLabelText('Command').textContent).toBe('bash -l');
    expect(screen.getByRole('link', { name: 'Postern Kubernetes' }).getAttribute('href')).toBe(
      '/web/cluster/root/kubernetes',
    );
    await waitFor(() => expect(document.title).toBe('root • Kubernetes Exec'));

    const socket = await firstSocket();
    const url = new URL(socket.url);
    expect(url.protocol).toBe('ws:');
    expect(url.pathname).toBe('/v1/webapi/sites/root/kubernetes/prod/exec/ws');
    expect(paramsOf(socket)).toEqual({
      namespace: 'shop',
      pod: 'web-7d4f9',
      container: 'nginx',
      command: 'bash -l',
      term: { w: 80, h: 24 },
    });
    expect(isTraceparent(url.searchParams.get('traceparent') ?? '')).toBe(true);
    expect(socket.url).not.toContain('bearer-tok');

    // The terminal protocol: the bearer in the first frame, then envelopes both ways.
    socket.open();
    expect(socket.sent).toEqual([JSON.stringify({ token: 'bearer-tok' })]);
    socket.accept();
    await waitFor(() => expect(screen.queryByText('Connecting…')).toBeNull());
    const engine = engines[0]!;
    expect(engine.options.readOnly).toBe(false);
    socket.receive(T.raw, '/ # ');
    await waitFor(() => expect(engine.plain()).toContain('/ # '));
    engine.type('ls\r');
    expect(socket.payloads(T.raw)).toEqual(['ls\r']);
    engine.fitTo({ cols: 120, rows: 40 });
    expect(socket.payloads(T.resize)).toEqual([
      JSON.stringify({ event: 'resize', width: 120, height: 40, size: '120:40' }),
    ]);

    socket.receive(T.sessionEnd, JSON.stringify({ reason: 'exited with code 0' }));
    const status = await screen.findByText('disconnected: exited with code 0');
    expect(status.getAttribute('data-ended')).toBe('normally');
  });

  it('runs /bin/sh without a command, and decodes the URL’s segments for the socket', async () => {
    renderExec(
      `/web/cluster/root/kubernetes/prod/exec/${encodeURIComponent('team a')}/web-0/${encodeURIComponent('side/car')}`,
    );
    const socket = await firstSocket();
    expect(new URL(socket.url).pathname).toBe('/v1/webapi/sites/root/kubernetes/prod/exec/ws');
    expect(paramsOf(socket)).toMatchObject({
      namespace: 'team a',
      pod: 'web-0',
      container: 'side/car',
      command: '/bin/sh',
    });
    expect(screen.getByLabelText('Command').textContent).toBe('/bin/sh');
  });

  it('a refusal ends the session in red, with the server’s reason', async () => {
    renderExec('/web/cluster/root/kubernetes/prod/exec/kube-system/etcd-0/etcd');
    const socket = await firstSocket();
    socket.open();
    socket.receiveText(
      JSON.stringify({
        type: 'create_session_response',
        status: 'error',
        message: 'your roles do not allow create on pods/exec in namespace kube-system',
      }),
    );
    const status = await screen.findByText(
      'disconnected: your roles do not allow create on pods/exec in namespace kube-system',
    );
    expect(status.getAttribute('data-ended')).toBe('failed');
  });

  it('needs the kubernetes flag', async () => {
    renderExec('/web/cluster/root/kubernetes/prod/exec/shop/web-7d4f9/nginx', emptyAcl());
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
    expect(sockets).toHaveLength(0);
  });
});
