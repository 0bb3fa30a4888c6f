import { describe, expect, it } from 'vitest';
import { RoleSet } from './role-set.js';
import { parseRoleYaml } from './role.yaml.js';

// create_host_user_mode, host_groups and host_sudoers: what the proxy lets a node do for a login
// with no OS user yet, worked out per node and login from the roles that give that login there.

const role = (name: string, spec: string) =>
  parseRoleYaml(`kind: role\nversion: v7\nmetadata:\n  name: ${name}\nspec:\n${spec}`).role;

const devs = role(
  'devs',
  `  options:
    create_host_user_mode: insecure-drop
  allow:
    node_labels: {env: dev}
    logins: [alice]
    host_groups: [docker, developers]
    host_sudoers: ['ALL=(ALL) NOPASSWD: /usr/bin/systemctl']
`,
);
const keepers = role(
  'keepers',
  `  options:
    create_host_user_mode: keep
  allow:
    node_labels: {env: dev}
    logins: [alice]
    host_groups: [adm]
`,
);
const prodOff = role(
  'prod',
  `  options:
    create_host_user_mode: "off"
  allow:
    node_labels: {'*': '*'}
    logins: [alice]
`,
);
const silent = role('silent', `  allow:\n    node_labels: {env: dev}\n    logins: [bob]\n`);

const set = (...roles: ReturnType<typeof role>[]) =>
  new RoleSet(roles, { name: 'alice', traits: {} });
const dev = { labels: { env: 'dev' } };

describe('host user grants', () => {
  it('gives the mode, groups and sudoers lines of the roles that give the login there', () => {
    expect(set(devs).hostUserFor(dev, 'alice')).toEqual({
      mode: 'insecure-drop',
      groups: ['docker', 'developers'],
      sudoers: ['ALL=(ALL) NOPASSWD: /usr/bin/systemctl'],
    });
    // keep wins over insecure-drop; the lists add up.
    expect(set(devs, keepers).hostUserFor(dev, 'alice')).toEqual({
      mode: 'keep',
      groups: ['docker', 'developers', 'adm'],
      sudoers: ['ALL=(ALL) NOPASSWD: /usr/bin/systemctl'],
    });
  });

  it('gives none for another login, another node, a role that says off, or no word at all', () => {
    expect(set(devs).hostUserFor(dev, 'bob')).toBeUndefined();
    expect(set(devs).hostUserFor({ labels: { env: 'prod' } }, 'alice')).toBeUndefined();
    expect(set(devs, prodOff).hostUserFor(dev, 'alice')).toBeUndefined();
    expect(set(silent).hostUserFor(dev, 'bob')).toBeUndefined();
  });

  it('takes deny lists away, * all of them', () => {
    const noDocker = role(
      'no-docker',
      `  deny:\n    host_groups: [docker]\n    host_sudoers: ['*']\n`,
    );
    expect(set(devs, noDocker).hostUserFor(dev, 'alice')).toEqual({
      mode: 'insecure-drop',
      groups: ['developers'],
      sudoers: [],
    });
  });

  it('refuses what a node could not apply', () => {
    expect(() => role('bad', `  options:\n    create_host_user_mode: always\n`)).toThrow(
      /must be off, keep or insecure-drop/,
    );
    expect(() => role('bad', `  allow:\n    host_groups: ['Wheel Group']\n`)).toThrow(
      /must be an OS group name/,
    );
    expect(() => role('bad', `  allow:\n    host_sudoers: ["ALL\\nroot ALL"]\n`)).toThrow(
      /must be one line/,
    );
    expect(role('old', `  options:\n    create_host_user_mode: drop\n`).spec.options).toEqual({
      create_host_user_mode: 'drop',
    });
  });
});
