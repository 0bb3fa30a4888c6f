import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from '../packages/server/src/testing/fake-kube/fake-kube-apiserver.testkit.js';
import { postern, uniqueUser } from './support/identity.js';
import { createFromYaml } from './support/create-resources.js';
import { signIn } from './support/session.js';
import { expectConnected, expectOnScreen, terminal } from './support/terminal.js';
import { cluster, shared, siteApi as api } from './support/shared-server.js';

// Kubernetes in the browser against the shared server and a FAKE API server
// (packages/server/src/testing/fake-kube: it speaks the real wire protocol for pods; see
// docs/kubernetes.md for what that proves): the Kubernetes page lists the cluster with the groups
// the roles allow, Connect gives the login command, Exec in browser picks a namespace, pod and
// container and opens a shell in a new tab as a live k8s session, and its recording plays.

let suite: string;
let kubeName: string;
let roleName: string;
let userName: string;
let fake: FakeKubeApiServer;

const role = () => `kind: role
version: v7
metadata:
  name: ${roleName}
spec:
  allow:
    kubernetes_labels: {suite: ${suite}}
    kubernetes_groups: [web-devs]
    kubernetes_resources:
      - {kind: pod, namespace: prod, name: 'web-*', verbs: ['*']}
    rules:
      - resources: [session, session_tracker, event]
        verbs: [list, read]
  deny: {}
`;

const kubeCluster = () => `kind: kube_cluster
version: v3
metadata:
  name: ${kubeName}
  description: Production (e2e fake)
  labels: {suite: ${suite}, env: e2e}
spec:
  server: ${fake.url}
  ca_cert: |
${fake.caPem
  .trim()
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
  credentials:
    token: ${fake.token}
`;

const rowOf = (page: Page, name: string) =>
  page
    .getByRole('main')
    .getByRole('row')
    .filter({ has: page.getByText(name, { exact: true }) });

async function openKubernetes(page: Page) {
  await page.goto(`/web/cluster/${cluster}/kubernetes`);
  await expect(page.getByRole('heading', { name: 'Kubernetes', level: 2 })).toBeVisible();
}

test.describe.serial('kubernetes', () => {
  let context: BrowserContext;
  let page: Page;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    suite = uniqueUser('kube');
    kubeName = `prod-${suite}`;
    roleName = `kube-web-${suite}`;
    userName = uniqueUser('kira');
    fake = await startFakeKubeApiServer({ namespaces: ['default', 'prod'] });
    fake.pods.add({
      name: 'web-1',
      namespace: 'prod',
      containers: [{ name: 'app' }, { name: 'sidecar' }],
    });
    fake.pods.add({ name: 'db-1', namespace: 'prod' });
    await createFromYaml(role());
    await createFromYaml(kubeCluster());
    context = await browser.newContext({
      baseURL: process.env.POSTERN_E2E_URL,
      ignoreHTTPSErrors: true,
    });
    const session = await signIn(context, [roleName], userName);
    const bearer = String(session.bearerToken);
    // The role and cluster reached storage from the command line; the server's watch brings them.
    await expect
      .poll(async () => {
        const response = await context.request.get(api('kubernetes'), {
          headers: { Authorization: `Bearer ${bearer}` },
        });
        if (!response.ok()) return [];
        return ((await response.json()).items as { name: string }[]).map((item) => item.name);
      })
      .toEqual([kubeName]);
    page = await context.newPage();
  });

  test.afterAll(async () => {
    await context?.close();
    await fake?.stop();
    for (const ref of [`kube_cluster/${kubeName}`, `role/${roleName}`]) {
      try {
        postern(shared(), 'rm', ref);
      } catch {
        // Never created: the setup failed before it.
      }
    }
  });

  test('the Kubernetes page lists the cluster, and Connect gives the login command', async () => {
    await openKubernetes(page);
    const row = rowOf(page, kubeName);
    await expect(row).toContainText('Production (e2e fake)');
    await expect(row.getByText('web-devs')).toBeVisible();
    await expect(row.getByText(`suite: ${suite}`, { exact: true })).toBeVisible();
    await row.getByRole('button', { name: `Connect to ${kubeName}` }).click();
    const dialog = page.getByRole('dialog', { name: `Connect to ${kubeName}` });
    await expect(dialog.getByLabel('Login command')).toHaveText(`postern kube login ${kubeName}`);
    await page.keyboard.press('Escape');
  });

  test('Exec in browser opens a shell in the chosen container as a live, recorded session', async () => {
    test.setTimeout(120_000);
    await openKubernetes(page);
    await rowOf(page, kubeName)
      .getByRole('button', { name: `Connect to ${kubeName}` })
      .click();
    const dialog = page.getByRole('dialog', { name: `Connect to ${kubeName}` });
    // Only what the roles reach: the prod namespace, and web-1 in it (not db-1).
    await dialog.getByRole('combobox', { name: 'Namespace' }).click();
    await dialog.getByRole('option', { name: 'prod', exact: true }).click();
    await dialog.getByRole('combobox', { name: 'Pod' }).click();
    await expect(dialog.getByRole('option', { name: 'db-1' })).toHaveCount(0);
    await dialog.getByRole('option', { name: 'web-1', exact: true }).click();
    await expect(dialog.getByRole('combobox', { name: 'Container' })).toHaveValue('app');
    const [shell] = await Promise.all([
      context.waitForEvent('page'),
      dialog.getByRole('link', { name: 'Open terminal' }).click(),
    ]);
    await expect(shell).toHaveURL(
      new RegExp(`/web/cluster/${cluster}/kubernetes/${kubeName}/exec/prod/web-1/app\\?command=`),
    );
    await expect(
      shell.getByRole('heading', { name: 'Exec in prod/web-1', level: 1 }),
    ).toBeVisible();
    await expectConnected(shell);
    await terminal(shell).click();
    await shell.keyboard.type('echo kube-$((6*7))');
    await shell.keyboard.press('Enter');
    await expectOnScreen(shell, 'kube-42');

    // Active Sessions lists it as a Kubernetes session on the pod.
    await page.goto(`/web/cluster/${cluster}/sessions`);
    await expect(
      page.getByRole('main').getByRole('row').filter({ hasText: 'web-1' }),
    ).toBeVisible();

    await shell.keyboard.type('exit');
    await shell.keyboard.press('Enter');
    await expect(shell.getByRole('status').filter({ hasText: 'disconnected:' })).toBeVisible();
    await shell.close();

    // Session Recordings lists it as k8s, and the player plays what was typed.
    await page.goto(`/web/cluster/${cluster}/recordings`);
    const recording = page
      .getByRole('table', { name: 'Session Recordings' })
      .getByRole('row')
      .filter({ hasText: kubeName })
      .first();
    await expect(recording).toBeVisible({ timeout: 30_000 });
    await recording.getByRole('link', { name: /^Play recording of / }).click();
    await expect
      .poll(
        async () => {
          const rows = await page.locator('.xterm-rows > div').allTextContents();
          return rows.map((row) => row.replace(/\u00a0/g, ' ')).join('\n');
        },
        { timeout: 30_000 },
      )
      .toContain('kube-42');
  });
});
