import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { AssistServers } from './assist-tools.js';
import { plainText } from './command-run.js';

// What the model's tools see and propose, on the real inventory and roles: only servers the
// user may reach, and only logins the user may use on every one of them.

const admin = hostActor('test');
let app: TestApp;
let servers: AssistServers;
let ops: RoleSet;

beforeAll(async () => {
  app = await createTestApp();
  // Closed loopback ports: nothing here dials them.
  const add = (name: string, port: number, labels: Record<string, string>) =>
    app.services.inventory.addOpenSsh({ name, addr: `127.0.0.1:${port}`, labels }, admin);
  await add('web-1', 9, { env: 'prod', tier: 'web' });
  await add('web-2', 13, { env: 'prod', tier: 'web' });
  await add('db-1', 17, { env: 'prod', tier: 'db' });
  await add('lab-1', 19, { env: 'lab' });
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      admin,
    );
  // Every prod server as `deploy`, the web servers also as `www`; nothing in the lab.
  await role('prod', { node_labels: { env: 'prod' }, logins: ['deploy'] });
  await role('web', { node_labels: { tier: 'web' }, logins: ['www'] });
  ops = app.services.access.roleSetFor('olga', ['prod', 'web']);
  servers = new AssistServers(app.services.inventory);
});
afterAll(() => app?.close());

const hostnames = (json: string) =>
  (JSON.parse(json) as { servers: { hostname: string }[] }).servers.map((s) => s.hostname).sort();

describe('list_servers', () => {
  it('lists what the user may reach, by search or labels, with the logins on each', () => {
    expect(hostnames(servers.list(ops, {}))).toEqual(['db-1', 'web-1', 'web-2']);
    expect(hostnames(servers.list(ops, { labels: { tier: 'web' } }))).toEqual(['web-1', 'web-2']);
    expect(hostnames(servers.list(ops, { search: 'db' }))).toEqual(['db-1']);
    const web = JSON.parse(servers.list(ops, { search: 'web-1' })).servers[0];
    expect(web.logins.sort()).toEqual(['deploy', 'www']);
    // Arguments of the wrong type are ignored, not trusted.
    expect(hostnames(servers.list(ops, { search: 7, labels: 'tier=db' }))).toHaveLength(3);
  });
});

describe('propose_command', () => {
  it('proposes on the named servers, with the logins common to all of them', () => {
    const proposal = servers.propose(ops, {
      command: ' uptime ',
      servers: ['web-1', 'WEB-2'],
      login: 'www',
    });
    expect(proposal).toMatchObject({
      ok: true,
      command: { command: 'uptime', login: 'www' },
    });
    if (!proposal.ok) return;
    expect(proposal.command.nodes.map((n) => n.hostname).sort()).toEqual(['web-1', 'web-2']);
    expect(proposal.command.logins.sort()).toEqual(['deploy', 'www']);
  });

  it('takes a login the user may use when the model asks for one they may not', () => {
    const proposal = servers.propose(ops, {
      command: 'df -h',
      labels: { env: 'prod' },
      login: 'root',
    });
    // db-1 has no `www`: `deploy` is the only login on all three.
    expect(proposal).toMatchObject({ ok: true, command: { login: 'deploy', logins: ['deploy'] } });
  });

  it('tells the model why it cannot propose', () => {
    expect(servers.propose(ops, { servers: ['web-1'] })).toEqual({
      ok: false,
      reason: 'name the command to run',
    });
    expect(servers.propose(ops, { command: 'ls' })).toMatchObject({ ok: false });
    // A server the user may not reach is no match, as if it did not exist.
    expect(servers.propose(ops, { command: 'ls', servers: ['lab-1'] })).toEqual({
      ok: false,
      reason: 'no server the user may reach matches; list them first',
    });
    const nobody = app.services.access.roleSetFor('nina', []);
    expect(servers.propose(nobody, { command: 'ls', servers: ['web-1'] })).toMatchObject({
      ok: false,
    });
  });
});

describe('the output kept of a run', () => {
  it('drops colours, cursor moves, titles and carriage returns', () => {
    const raw = '\u001b]0;root@web-1: ~\u0007\u001b[01;34mlogs\u001b[0m\r\n\u001b[2Kdone 100%\r\n';
    expect(plainText(raw)).toBe('logs\ndone 100%\n');
  });
});
