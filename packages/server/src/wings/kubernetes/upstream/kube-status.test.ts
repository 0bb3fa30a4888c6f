import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDiscoveryRequest, kubeStatus, writeStatus } from './kube-status.js';

describe('isDiscoveryRequest', () => {
  it.each([
    ['GET', '/api'],
    ['GET', '/api/v1?timeout=32s'],
    ['GET', '/apis'],
    ['GET', '/apis/apps'],
    ['GET', '/apis/apps/v1'],
    ['GET', '/version'],
    ['GET', '/openapi/v3/apis/apps/v1'],
    ['GET', '/kube/prod/api?timeout=32s'],
    ['GET', '/kube/prod/apis/apps/v1'],
    ['HEAD', '/kube/prod/version'],
  ])('%s %s is discovery', (method, url) => {
    expect(isDiscoveryRequest(method, url)).toBe(true);
  });

  it.each([
    ['GET', '/api/v1/pods'],
    ['GET', '/api/v1/namespaces/prod/pods'],
    ['GET', '/apis/apps/v1/deployments'],
    ['GET', '/kube/prod/api/v1/namespaces'],
    ['GET', '/kube/prod'],
    ['POST', '/api'],
    ['GET', '/healthz'],
    ['GET', '/kube/api/apis/apps/v1/x'],
  ])('%s %s is not', (method, url) => {
    expect(isDiscoveryRequest(method, url)).toBe(false);
  });
});

describe('writeStatus', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((_req, res) => writeStatus(res, kubeStatus(403, 'your roles say no')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('answers a request for a resource with the Status kubectl decodes', async () => {
    const res = await fetch(`${base}/kube/prod/api/v1/namespaces/prod/pods`);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'your roles say no',
      reason: 'Forbidden',
      code: 403,
    });
  });

  it('answers discovery with the message as text, which kubectl prints', async () => {
    const res = await fetch(`${base}/kube/prod/api?timeout=32s`);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe('your roles say no\n');
  });
});
