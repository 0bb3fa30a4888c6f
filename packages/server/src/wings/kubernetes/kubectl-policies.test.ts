import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';
import type { FakeKubeApiServer } from '../../testing/fake-kube/fake-kube-apiserver.testkit.js';
import {
  startKubectlWorld,
  typeAndSee,
  type KubectlWorld,
} from '../../testing/kubectl-world.testkit.js';
import { createSessionMfaRole } from '../../testing/roles.testkit.js';

// The roles' options and access requests with the real kubectl through Postern to the fake API
// server (FAKE, testing/fake-kube): an assumed access request, require_session_mfa, a moderated
// exec (require_session_join) and max_kubernetes_connections.

let world: KubectlWorld;
let app: TestApp;
let fake: FakeKubeApiServer;
let harnessFor: KubectlWorld['kubectlFor'];

beforeAll(async () => {
  world = await startKubectlWorld();
  ({ app, fake } = world);
  harnessFor = world.kubectlFor;
});

afterAll(() => world?.stop());

describe('an access request assumed by postern kube login', () => {
  it("gives the certificate the request's roles while approved and unlocked, and none once deleted", async () => {
    const admin = hostActor('test');
    const role = (name: string, allow: object) =>
      app.services.roles.create(
        JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
        admin,
      );
    await role('asks-web', { request: { roles: ['web-team'] } });
    await role('reviews-web', { review_requests: { roles: ['web-team'] } });
    await app.services.users.create({ name: 'dora', roles: ['asks-web'] }, 'test');
    const dora = { name: 'dora', roleSet: app.services.access.resolve('dora', []).roleSet };
    const reviewer = {
      name: 'rex',
      roleSet: app.services.access.roleSetFor('rex', ['reviews-web']),
    };
    const requests = app.services.accessRequests;
    const request = await requests.create(
      {
        roles: ['web-team'],
        resources: [],
        reason: 'debug',
        suggestedReviewers: [],
        dryRun: false,
      },
      dora,
    );
    const without = await harnessFor('dora');
    const assumed = await harnessFor('dora', [request.id]);
    try {
      // Pending: the request adds nothing yet.
      expect((await assumed.run(['get', 'pods', '-n', 'prod'])).code).not.toBe(0);
      await requests.review(request.id, { state: 'APPROVED', reason: '' }, reviewer);
      await expect
        .poll(async () => (await assumed.run(['get', 'pods', '-n', 'prod'])).stdout)
        .toContain('web-1');
      expect((await without.run(['get', 'pods', '-n', 'prod'])).code).not.toBe(0);
      // An access_request lock refuses the certificate that assumed it, saying why, until lifted.
      const lock = await app.services.locks.create(
        { targets: { access_request: request.id }, message: 'approved in error' },
        admin,
      );
      const refused = await assumed.run(['get', 'pods', '-n', 'prod']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('locked: approved in error');
      await app.services.locks.remove(lock.metadata.name, admin);
      expect((await assumed.run(['get', 'pods', '-n', 'prod'])).stdout).toContain('web-1');
      await requests.remove(request.id, dora);
      await expect
        .poll(async () => (await assumed.run(['get', 'pods', '-n', 'prod'])).code)
        .not.toBe(0);
    } finally {
      await without.cleanup();
      await assumed.cleanup();
    }
  });
});

describe('require_session_mfa', () => {
  it('refuses kubectl, which cannot ask for the check, before the API server sees a request', async () => {
    await createSessionMfaRole(app, 'kube-checked');
    await app.services.users.create({ name: 'mona', roles: ['web-team', 'kube-checked'] }, 'test');
    const mona = await harnessFor('mona');
    const seen = fake.requests.length;
    try {
      // --raw: no discovery first, so kubectl prints the refusal's own message.
      const result = await mona.run(['get', '--raw', '/kube/prod/api/v1/namespaces/prod/pods']);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        'require an MFA check for each session (require_session_mfa)',
      );
      expect(fake.requests.slice(seen).some((r) => r.path.includes('/pods'))).toBe(false);
    } finally {
      await mona.cleanup();
    }
  });
});

describe('a moderated kubectl exec (require_session_join kinds: [k8s])', () => {
  beforeAll(async () => {
    const allow = {
      require_session_join: [
        {
          name: 'kube oversight',
          filter: 'contains(user.roles, "kube-mod")',
          kinds: ['k8s'],
          count: 1,
          modes: ['moderator'],
        },
      ],
    };
    await app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name: 'watched-web' },
        spec: { allow },
      }),
      hostActor('test'),
    );
    await app.services.users.create({ name: 'eve', roles: ['web-team', 'watched-web'] }, 'test');
  });

  it('refuses what a moderator could not watch: exec without a terminal, kubectl cp, port-forward', async () => {
    const eve = await harnessFor('eve');
    try {
      const needs =
        'your Kubernetes sessions need 1 moderator matching contains(user.roles, "kube-mod")';
      const command = await eve.run(['exec', '-n', 'prod', 'web-1', '--', 'echo', 'unwatched']);
      expect(command.code).not.toBe(0);
      expect(command.stdout).not.toContain('unwatched');
      expect(command.stderr).toContain(`a command without a terminal is not allowed: ${needs}`);
      const copy = await eve.run(['cp', 'prod/web-1:/etc/hostname', '/dev/null']);
      expect(copy.code).not.toBe(0);
      const forward = await eve.run(['port-forward', '-n', 'prod', 'pod/web-1', ':8080']);
      expect(forward.code).not.toBe(0);
      expect(forward.stderr).toContain(`port forwarding is not allowed: ${needs}`);
    } finally {
      await eve.cleanup();
    }
  });

  it('waits for the moderator before the shell runs, and ends when they leave', async () => {
    const eve = await harnessFor('eve');
    try {
      const before = new Set(app.services.hub.list().map((t) => t.id));
      const shell = eve.startInPty(['exec', '-it', '-n', 'prod', 'web-1', '--', 'sh'], {
        cols: 80,
        rows: 24,
      });
      await shell.waitFor(/this session needs 1 moderator matching/, 'the waiting notice');
      shell.write('echo early-$((2*3))\r');
      const sid = app.services.hub.list().find((t) => !before.has(t.id) && t.owner === 'eve')!.id;
      expect(app.services.hub.tracker(sid)).toMatchObject({ kind: 'k8s', moderated: true });
      // A moderator's party (as the console's or `postern join`'s would be), on the live session.
      const session = app.services.hub.get(sid)!;
      const seen: string[] = [];
      const moderator = {
        id: 'moderator-party',
        user: 'mo',
        roles: ['kube-mod'],
        mode: 'moderator' as const,
        output: (chunk: Uint8Array) => void seen.push(Buffer.from(chunk).toString()),
        event: () => undefined,
        sessionData: () => undefined,
        end: () => undefined,
      };
      await session.join(moderator);
      await shell.waitFor(/mo \(moderator\) joined: the session starts/, 'the start');
      await typeAndSee(shell, 'echo kube-$((2*5))', /kube-10/);
      expect(shell.output()).not.toContain('early-6');
      expect(seen.join('')).toContain('kube-10');
      session.leave(moderator.id, 'left');
      expect(await shell.exited).not.toBe(0);
      expect(shell.output()).toContain('the last required moderator left the session');
    } finally {
      await eve.cleanup();
    }
  });
});

describe('max_kubernetes_connections', () => {
  it('refuses a second exec stream while one is open, and allows it once that one ends', async () => {
    const kubectlLimited = await harnessFor('carl');
    const shell = kubectlLimited.startInPty(['exec', '-it', '-n', 'prod', 'web-1', '--', 'sh'], {
      cols: 80,
      rows: 24,
    });
    await typeAndSee(shell, 'echo holding-$((3+4))', /holding-7/);
    const refused = await kubectlLimited.run(['exec', '-n', 'prod', 'web-1', '--', 'echo', 'two']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'too many Kubernetes connections: max_kubernetes_connections allows 1 at a time',
    );
    // A port-forward counts too.
    const forward = await kubectlLimited.run(['port-forward', '-n', 'prod', 'pod/web-1', ':8080']);
    expect(forward.code).not.toBe(0);
    expect(forward.stderr).toContain('too many Kubernetes connections');
    shell.write('exit 0\r');
    await shell.exited;
    await expect
      .poll(
        async () =>
          (await kubectlLimited.run(['exec', '-n', 'prod', 'web-1', '--', 'echo', 'two'])).stdout,
      )
      .toBe('two\n');
  });
});
