import { request } from 'node:https';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpgradeFailedError } from '../../wings/kubernetes/httpstream/dial-options.js';
import { dialPortForward } from '../../wings/kubernetes/portforward/index.js';
import { dialExec, exitCodeOf } from '../../wings/kubernetes/remotecommand/index.js';
import { readAll } from '../../wings/kubernetes/spdy/spdy.testkit.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from './fake-kube-apiserver.testkit.js';

// The fake API server on its own terms: what it refuses, its watches, and the kit's own clients
// (dialExec, dialPortForward: the proxy's side towards a cluster) over its TLS and token.

let fake: FakeKubeApiServer;
let echo: Server;

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  fake = await startFakeKubeApiServer({
    authorize: (request) => !request.path.includes('/namespaces/secret/'),
  });
  fake.pods.add({ name: 'web-1', ports: { 80: (echo.address() as AddressInfo).port } });
  fake.pods.add({ name: 'done-1', phase: 'Succeeded' });
});

afterAll(async () => {
  await fake.stop();
  echo.close();
});

const tls = () => ({ ca: fake.caPem });
const bearer = () => ({ Authorization: `Bearer ${fake.token}` });

/** A GET with the token; the whole body, or each line as it comes when `onLine` is given. */
function get(
  path: string,
  options: { token?: boolean; method?: string; onLine?: (line: string) => boolean } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${fake.url}${path}`, {
      method: options.method ?? 'GET',
      ...tls(),
      headers: options.token === false ? {} : bearer(),
    });
    req.once('response', (res) => {
      let body = '';
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
        const lines = body.split('\n').slice(0, -1);
        const fresh = lines.slice(seen);
        seen = lines.length;
        if (options.onLine && fresh.some((line) => options.onLine!(line))) res.destroy();
      });
      res.once('close', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('what the fake API server refuses, with a Status', () => {
  it.each([
    ['a caller without credentials', '/api/v1/pods', { token: false }, 401, 'Unauthorized'],
    ['a path it does not serve', '/apis/apps/v1/deployments', {}, 404, 'NotFound'],
    ['a write', '/api/v1/namespaces/default/pods', { method: 'POST' }, 405, 'MethodNotAllowed'],
    [
      'exec without an upgrade',
      '/api/v1/namespaces/default/pods/web-1/exec',
      {},
      400,
      'BadRequest',
    ],
    ['what `authorize` forbids', '/api/v1/namespaces/secret/pods', {}, 403, 'Forbidden'],
    [
      'a label selector it cannot parse',
      '/api/v1/pods?labelSelector=%3D%3D',
      {},
      400,
      'BadRequest',
    ],
  ] as const)('%s', async (_what, path, options, code, reason) => {
    const { status, body } = await get(path, options);
    expect(status).toBe(code);
    expect(JSON.parse(body)).toMatchObject({ kind: 'Status', status: 'Failure', code, reason });
  });

  it('an exec into a pod that is not running, before upgrading', async () => {
    const url = `${fake.url}/api/v1/namespaces/default/pods/done-1/exec`;
    const request = { command: ['true'], stdin: false, stdout: true, stderr: false, tty: false };
    const refused = dialExec(url, { request, tls: tls(), headers: bearer() });
    await expect(refused).rejects.toBeInstanceOf(UpgradeFailedError);
    await expect(refused).rejects.toMatchObject({ status: { message: /is not running/ } });
  });
});

describe('watches of the fake API server', () => {
  it('replays what came after a resourceVersion, then MODIFIED and DELETED as they happen', async () => {
    const list = JSON.parse((await get('/api/v1/namespaces/default/pods')).body) as {
      metadata: { resourceVersion: string };
    };
    fake.pods.add({ name: 'new-1', labels: { tier: 'x' } });
    const events: { type: string; object: { metadata: { name: string } } }[] = [];
    const watching = get(
      `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${list.metadata.resourceVersion}&labelSelector=tier%3Dx`,
      {
        onLine: (line) => {
          events.push(JSON.parse(line) as (typeof events)[number]);
          if (events.length === 1)
            fake.pods.modify('default', 'new-1', (pod) => (pod.status.phase = 'Failed'));
          if (events.length === 2) fake.pods.delete('default', 'new-1');
          return events.length === 3;
        },
      },
    );
    await watching;
    expect(events.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual([
      'ADDED new-1',
      'MODIFIED new-1',
      'DELETED new-1',
    ]);
  });
});

describe.each(['websocket', 'spdy'] as const)(
  'the kit’s clients against the fake over %s',
  (transport) => {
    it('dialExec runs a command and reads its exit code', async () => {
      const session = await dialExec(`${fake.url}/api/v1/namespaces/default/pods/web-1/exec`, {
        request: {
          command: ['sh', '-c', 'echo $((1+2)); exit 4'],
          stdin: false,
          stdout: true,
          stderr: true,
          tty: false,
        },
        transports: [transport],
        tls: tls(),
        headers: bearer(),
      });
      expect((await readAll(session.stdout!)).toString()).toBe('3\n');
      expect(exitCodeOf(await session.status)).toBe(4);
      expect(fake.requests.at(-1)?.headers.upgrade).toBe(
        transport === 'spdy' ? 'SPDY/3.1' : 'websocket',
      );
    });

    it('dialPortForward reaches the pod port', async () => {
      const client = await dialPortForward(
        `${fake.url}/api/v1/namespaces/default/pods/web-1/portforward`,
        {
          transports: [transport],
          tls: tls(),
          headers: bearer(),
        },
      );
      const { data, error } = await client.forward(80);
      data.end('ping');
      expect((await readAll(data)).toString()).toBe('ping');
      expect(await error).toBe('');
      await client.close();
    });
  },
);
