import { describe, expect, it } from 'vitest';
import { buildCli } from './main.js';

// The whole program as `postern` builds it: what its help promises.

const help = (name: string) => {
  const command = buildCli().commands.find((candidate) => candidate.name() === name);
  if (!command) throw new Error(`no command ${name}`);
  return command.description();
};

describe('postern get, create and rm', () => {
  it("name the wings' kinds as well as the core's (the wings add theirs with their commands)", () => {
    expect(help('get')).toContain('roles, users, locks');
    for (const kind of ['apps', 'db', 'kube_cluster', 'desktop'])
      expect(help('get')).toContain(kind);
    for (const kind of ['role', 'app', 'db', 'kube_cluster', 'desktop']) {
      expect(help('create')).toContain(kind);
    }
    expect(help('rm')).toContain('app/NAME');
    expect(help('rm')).toContain('kube_cluster/NAME');
  });
});
