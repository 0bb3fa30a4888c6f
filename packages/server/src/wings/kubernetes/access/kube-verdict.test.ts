import { describe, expect, it } from 'vitest';
import { kubeResourceRules } from '../../../access-control/rbac/kube-resources.js';
import { RoleSet } from '../../../access-control/rbac/role-set.js';
import { roleSchema } from '../../../access-control/rbac/role.schema.js';
import { parseKubeRequest } from './kube-request.js';
import { judgeKubeRequest, type KubeVerdict } from './kube-verdict.js';

// The roles' `kubernetes_resources` against requests as kubectl sends them, on a cluster labelled
// env=prod.

const role = (name: string, allow: object, deny: object = {}) =>
  roleSchema.parse({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow, deny } });
const prod = { env: 'prod' };
const reach = { kubernetes_labels: { env: 'prod' }, kubernetes_groups: ['devs'] };

function verdict(roles: ReturnType<typeof role>[], method: string, url: string): KubeVerdict {
  const request = parseKubeRequest(method, url);
  if (!request?.resource) throw new Error(`not a resource request: ${method} ${url}`);
  const set = RoleSet.from(roles, { name: 'alice', traits: {} });
  return judgeKubeRequest(kubeResourceRules(set.roles, prod), request);
}
const allowed = (v: KubeVerdict) => v.allowed && !v.filter && !v.judgeCreated;
const filtered = (v: KubeVerdict) => v.allowed && !!v.filter;

const webPods = role('web-pods', {
  ...reach,
  kubernetes_resources: [
    { kind: 'pod', namespace: 'prod', name: 'web-*', verbs: ['get', 'list', 'watch', 'exec'] },
  ],
});

describe('a v7 role without kubernetes_resources', () => {
  const all = role('all', reach);
  it.each([
    ['GET', '/api/v1/namespaces/prod/pods'],
    ['GET', '/api/v1/secrets'],
    ['DELETE', '/apis/apps/v1/namespaces/a/deployments/d'],
    ['POST', '/api/v1/namespaces/a/pods/p/exec?command=sh'],
    ['GET', '/apis/example.com/v1/widgets'],
  ])('reaches everything: %s %s', (method, url) => {
    expect(allowed(verdict([all], method, url))).toBe(true);
  });
  it('reaches nothing on a cluster its labels do not pick', () => {
    const set = RoleSet.from([all], { name: 'alice', traits: {} });
    const rules = kubeResourceRules(set.roles, { env: 'dev' });
    const request = parseKubeRequest('GET', '/api/v1/pods');
    if (!request?.resource) throw new Error('parse');
    expect(judgeKubeRequest(rules, request).allowed).toBe(false);
  });
});

describe('pods named web-* in prod', () => {
  it.each([
    ['GET', '/api/v1/namespaces/prod/pods/web-1', true],
    ['GET', '/api/v1/namespaces/prod/pods/db-1', false],
    ['GET', '/api/v1/namespaces/dev/pods/web-1', false],
    ['DELETE', '/api/v1/namespaces/prod/pods/web-1', false],
    ['POST', '/api/v1/namespaces/prod/pods/web-1/exec?command=sh&stdin=true', true],
    ['GET', '/api/v1/namespaces/prod/pods/web-1/exec?command=sh', true],
    ['POST', '/api/v1/namespaces/prod/pods/web-1/portforward', false],
    ['GET', '/api/v1/namespaces/prod/pods/web-1/log?follow=true', true],
    ['GET', '/api/v1/namespaces/prod/secrets/web-1', false],
  ])('%s %s: %s', (method, url, expected) => {
    expect(allowed(verdict([webPods], method, url))).toBe(expected);
  });
  it('lists pods in prod, and across namespaces, through a filter that keeps web-* in prod', () => {
    for (const url of ['/api/v1/namespaces/prod/pods', '/api/v1/pods', '/api/v1/pods?watch=true']) {
      const v = verdict([webPods], 'GET', url);
      expect(filtered(v), url).toBe(true);
      if (!v.allowed || !v.filter) throw new Error('no filter');
      expect(v.filter({ namespace: 'prod', name: 'web-1' })).toBe(true);
      expect(v.filter({ namespace: 'prod', name: 'db-1' })).toBe(false);
      expect(v.filter({ namespace: 'dev', name: 'web-1' })).toBe(false);
    }
  });
  it('refuses listings of other kinds and other namespaces, and a delete of the collection', () => {
    expect(verdict([webPods], 'GET', '/api/v1/namespaces/dev/pods').allowed).toBe(false);
    expect(verdict([webPods], 'GET', '/api/v1/namespaces/prod/secrets').allowed).toBe(false);
    expect(verdict([webPods], 'DELETE', '/api/v1/namespaces/prod/pods').allowed).toBe(false);
  });
  it('says what was refused', () => {
    const v = verdict([webPods], 'GET', '/api/v1/namespaces/prod/pods/db-1');
    expect(v).toEqual({
      allowed: false,
      reason: 'your roles do not allow get on pods "db-1" in namespace "prod"',
    });
  });
});

describe('a create the roles allow for some names', () => {
  const creators = role(
    'creators',
    {
      ...reach,
      kubernetes_resources: [{ kind: 'pod', namespace: 'prod', name: 'web-*', verbs: ['create'] }],
    },
    {
      kubernetes_resources: [{ kind: 'pod', namespace: 'prod', name: 'web-admin', verbs: ['*'] }],
    },
  );
  it('is allowed with a judge of the created object’s name (read from its body)', () => {
    const v = verdict([creators], 'POST', '/api/v1/namespaces/prod/pods');
    if (!v.allowed || !v.judgeCreated) throw new Error('no judge');
    expect(v.filter).toBeUndefined();
    expect(v.judgeCreated({ namespace: 'prod', name: 'web-9' })).toBe(true);
    expect(v.judgeCreated({ namespace: 'prod', name: 'db-1' })).toBe(false);
    // A deny of one name wins over the allow of its pattern.
    expect(v.judgeCreated({ namespace: 'prod', name: 'web-admin' })).toBe(false);
  });
  it('is refused where no name could pass, and for subresources', () => {
    expect(verdict([creators], 'POST', '/api/v1/namespaces/dev/pods').allowed).toBe(false);
    expect(verdict([creators], 'POST', '/api/v1/namespaces/prod/secrets').allowed).toBe(false);
    expect(verdict([webPods], 'POST', '/api/v1/namespaces/prod/pods').allowed).toBe(false);
  });
  it('needs no judge where every name passes', () => {
    const any = role('any', {
      ...reach,
      kubernetes_resources: [{ kind: 'pod', namespace: 'prod', name: '*', verbs: ['create'] }],
    });
    expect(allowed(verdict([any], 'POST', '/api/v1/namespaces/prod/pods'))).toBe(true);
  });
});

describe('a namespace rule reaches everything inside the namespace', () => {
  const team = role('team', {
    ...reach,
    kubernetes_resources: [{ kind: 'namespace', name: 'team-a', verbs: ['*'] }],
  });
  it.each([
    ['GET', '/api/v1/namespaces/team-a/secrets/s', true],
    ['GET', '/api/v1/namespaces/team-a/pods', true],
    ['DELETE', '/apis/apps/v1/namespaces/team-a/deployments/web', true],
    ['GET', '/api/v1/namespaces/team-a', true],
    ['GET', '/api/v1/namespaces/team-b/pods', false],
    ['GET', '/api/v1/namespaces/kube-system', false],
  ])('%s %s: %s', (method, url, expected) => {
    expect(allowed(verdict([team], method, url))).toBe(expected);
  });
  it('filters a listing of namespaces, and of pods across namespaces, to team-a', () => {
    const namespaces = verdict([team], 'GET', '/api/v1/namespaces');
    if (!namespaces.allowed || !namespaces.filter) throw new Error('no filter');
    expect(namespaces.filter({ namespace: '', name: 'team-a' })).toBe(true);
    expect(namespaces.filter({ namespace: '', name: 'team-b' })).toBe(false);
    const pods = verdict([team], 'GET', '/api/v1/pods');
    if (!pods.allowed || !pods.filter) throw new Error('no filter');
    expect(pods.filter({ namespace: 'team-a', name: 'x' })).toBe(true);
    expect(pods.filter({ namespace: 'team-b', name: 'x' })).toBe(false);
  });
});

describe('deny rules', () => {
  const all = role('all', reach);
  const noSecrets = role(
    'no-secrets',
    {},
    {
      kubernetes_resources: [{ kind: 'secret', namespace: '*', name: '*', verbs: ['*'] }],
    },
  );
  const noDbPod = role(
    'no-db-pod',
    {},
    {
      kubernetes_resources: [{ kind: 'pod', namespace: 'prod', name: 'db-*', verbs: ['exec'] }],
    },
  );
  it('a deny of every secret refuses their listing and each one', () => {
    expect(verdict([all, noSecrets], 'GET', '/api/v1/namespaces/a/secrets').allowed).toBe(false);
    expect(verdict([all, noSecrets], 'GET', '/api/v1/namespaces/a/secrets/s').allowed).toBe(false);
    expect(allowed(verdict([all, noSecrets], 'GET', '/api/v1/namespaces/a/pods'))).toBe(true);
  });
  it('a deny of some names refuses those objects only', () => {
    const set = [all, noDbPod];
    expect(verdict(set, 'POST', '/api/v1/namespaces/prod/pods/db-1/exec').allowed).toBe(false);
    expect(allowed(verdict(set, 'POST', '/api/v1/namespaces/prod/pods/web-1/exec'))).toBe(true);
    expect(allowed(verdict(set, 'GET', '/api/v1/namespaces/prod/pods/db-1'))).toBe(true);
  });
});

describe('parseKubeRequest', () => {
  it.each([
    ['GET', '/api', { resource: false, path: '/api' }],
    ['GET', '/apis/apps/v1', { resource: false, path: '/apis/apps/v1' }],
    ['GET', '/version?timeout=32s', { resource: false, path: '/version' }],
  ])('%s %s is no resource', (method, url, expected) => {
    expect(parseKubeRequest(method, url)).toEqual(expected);
  });
  it.each([
    ['GET', '/api/v1/namespaces/a/pods?limit=500', 'list', '', 'a', 'pods', '', ''],
    ['GET', '/api/v1/pods?watch=1', 'watch', '', '', 'pods', '', ''],
    ['GET', '/api/v1/watch/namespaces/a/pods', 'watch', '', 'a', 'pods', '', ''],
    ['GET', '/api/v1/namespaces/a', 'get', '', '', 'namespaces', 'a', ''],
    ['PUT', '/api/v1/namespaces/a/finalize', 'update', '', '', 'namespaces', 'a', 'finalize'],
    [
      'PATCH',
      '/apis/apps/v1/namespaces/a/deployments/d/scale',
      'patch',
      'apps',
      'a',
      'deployments',
      'd',
      'scale',
    ],
    ['DELETE', '/api/v1/namespaces/a/pods', 'deletecollection', '', 'a', 'pods', '', ''],
    ['POST', '/api/v1/namespaces/a/pods/p/exec?command=ls', 'create', '', 'a', 'pods', 'p', 'exec'],
  ])('%s %s', (method, url, verb, apiGroup, namespace, plural, name, subresource) => {
    expect(parseKubeRequest(method, url)).toMatchObject({
      resource: true,
      verb,
      apiGroup,
      namespace,
      plural,
      name,
      subresource,
    });
  });
  it('refuses paths that climb or say too much, and unknown methods', () => {
    expect(parseKubeRequest('GET', '/api/v1/namespaces/a/pods/p/exec/more')).toBeUndefined();
    expect(parseKubeRequest('GET', '/api/v1/namespaces/../pods')).toBeUndefined();
    expect(parseKubeRequest('GET', '/api/v1/namespaces/%2e%2e/pods')).toBeUndefined();
    expect(parseKubeRequest('TRACE', '/api/v1/pods')).toBeUndefined();
  });
});
