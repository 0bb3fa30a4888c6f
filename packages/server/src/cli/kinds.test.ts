import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config.js';
import { wingCommands } from '../wings/cli.js';
import { cliKinds, getWords, kindNamed, kindsForGet, removableRefs } from './kinds.js';

// The help and error texts are built from the kinds table; these are the words they had when
// each command branched on kind, so a new row extends them without changing the old ones.
describe('the CLI kinds table', () => {
  // The wings add their kinds as `postern` builds its commands (main.ts): the whole table, as
  // the CLI has it, whichever other test files ran in this worker first. Built in reverse
  // here: the table's order does not follow the order the wings' commands were built in.
  beforeAll(() => {
    for (const add of Object.values(wingCommands).reverse()) add(new Command());
  });

  it('names the kinds as the help always has', () => {
    expect(getWords()).toBe(
      'roles, users, locks, oidc, saml, github, login_rules, trusted_clusters, remote_clusters, apps, db, desktop, kube_cluster or connectors',
    );
    expect(removableRefs()).toBe(
      'role/NAME, user/NAME, lock/UUID, oidc/NAME, saml/NAME, github/NAME, login_rule/NAME, trusted_cluster/NAME, remote_cluster/NAME, app/NAME, db/NAME, desktop/NAME or kube_cluster/NAME',
    );
  });

  it('finds a kind by any of its words, and a group by its word', () => {
    expect(kindNamed('roles').kind).toBe('role');
    expect(kindNamed('lock').kind).toBe('lock');
    expect(kindsForGet('connectors').map((kind) => kind.kind)).toEqual(['oidc', 'saml', 'github']);
    expect(() => kindNamed('connectors')).toThrow(ConfigError);
    expect(() => kindNamed('nodes')).toThrow(
      "unknown kind 'nodes': use roles, users, locks, oidc, saml, github, login_rules, trusted_clusters, remote_clusters, apps, db, desktop, kube_cluster or connectors",
    );
  });

  it('gives every kind one row, each with the columns its text format prints', () => {
    const kinds = cliKinds.map((kind) => kind.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const kind of cliKinds) expect(kind.text.header.length).toBeGreaterThan(0);
  });
});
