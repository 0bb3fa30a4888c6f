import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeKubeApiServer, type FakeKubeApiServer } from './fake-kube-apiserver.testkit.js';
import { kubectlAgainst, kubectlVersion, type KubectlHarness } from './kubectl.testkit.js';

// The real kubectl's port-forward against the fake API server, to a loopback echo server that
// stands for the pod's port.
//
// What kubectl 1.32 negotiates (the upgrade headers the fake logged):
// - by default (KUBECTL_PORT_FORWARD_WEBSOCKETS: since 1.30 when set to true, by default since
//   1.31): GET with `Upgrade: websocket`
//   and the subprotocol SPDY/3.1+portforward.k8s.io; SPDY/3.1 frames then ride in binary
//   messages, kubectl pinging every 10 s inside;
// - with KUBECTL_PORT_FORWARD_WEBSOCKETS=false, or after a refused WebSocket upgrade: POST with
//   `Upgrade: SPDY/3.1` and X-Stream-Protocol-Version: portforward.k8s.io.
// Either way each local connection is an `error` stream (half-closed at once) and a `data`
// stream, with headers port and requestID (0, 1, ...).

const version = await kubectlVersion();
const forms = [
  {
    name: version.portForwardTunnel
      ? 'in the WebSocket tunnel (KUBECTL_PORT_FORWARD_WEBSOCKETS=true)'
      : `over SPDY: kubectl 1.${version.minor} has no WebSocket tunnel`,
    env: { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'true' },
    upgrade: version.portForwardTunnel ? 'websocket' : 'SPDY/3.1',
  },
  {
    name: 'over SPDY (KUBECTL_PORT_FORWARD_WEBSOCKETS=false)',
    env: { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' },
    upgrade: 'SPDY/3.1',
  },
];

let fake: FakeKubeApiServer;
let kubectl: KubectlHarness;
let echo: Server;

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  fake = await startFakeKubeApiServer();
  kubectl = await kubectlAgainst(fake);
  fake.pods.add({ name: 'web-1', ports: { 8080: (echo.address() as AddressInfo).port } });
});

afterAll(async () => {
  await kubectl.cleanup();
  await fake.stop();
  echo.close();
});

/** Sends `payload` through the local port, half-closes, and collects what comes back. */
function roundTrip(port: number, payload: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('end', () => resolve(Buffer.concat(chunks)));
    socket.once('error', reject);
    socket.end(payload);
  });
}

describe.each(forms)('kubectl port-forward $name', ({ env, upgrade }) => {
  it('round-trips bytes to the pod port, for several connections in turn', async () => {
    const forward = kubectl.start(
      ['port-forward', 'pod/web-1', ':8080', '--address', '127.0.0.1'],
      {
        env,
      },
    );
    const [, port] = await forward.waitFor(
      /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/,
      'its port',
    );
    const small = Buffer.from('hello through the tunnel');
    expect((await roundTrip(Number(port), small)).toString()).toBe(small.toString());
    const large = randomBytes(512 * 1024);
    expect((await roundTrip(Number(port), large)).equals(large)).toBe(true);
    forward.stop();
    const request = fake.requests.findLast((each) => each.path.endsWith('/portforward'))!;
    expect(request.headers.upgrade).toBe(upgrade);
    if (upgrade === 'websocket') {
      expect(request.headers.webSocketProtocols).toEqual(['SPDY/3.1+portforward.k8s.io']);
    } else {
      expect(request.headers.streamProtocolVersions).toEqual(['portforward.k8s.io']);
    }
  });
});

describe('kubectl port-forward to a port the pod does not expose', () => {
  it('hears the error on the error stream and says so', async () => {
    const forward = kubectl.start(['port-forward', 'pod/web-1', ':9999', '--address', '127.0.0.1']);
    const [, port] = await forward.waitFor(
      /Forwarding from 127\.0\.0\.1:(\d+) -> 9999/,
      'its port',
    );
    await roundTrip(Number(port), Buffer.from('anyone?')).catch(() => Buffer.alloc(0));
    await forward.waitFor(/error forwarding port 9999 to pod web-1/, 'the error');
    forward.stop();
  });
});
