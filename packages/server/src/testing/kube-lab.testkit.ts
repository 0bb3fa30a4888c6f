import { kubeClusterResourceSchema } from '@postern/contracts';
import { createSelfSigned } from '../tls/self-signed.js';
import { createTestApp, type TestApp } from './app-harness.testkit.js';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from './fake-kube/fake-kube-apiserver.testkit.js';
import { rm } from 'node:fs/promises';
import { signedInHome } from './cli-home.testkit.js';
import { inviteUser, type TestUser } from './identity.testkit.js';
import { createRole, createSessionMfaRole } from './roles.testkit.js';

export interface KubeLab {
  app: TestApp;
  /** FAKE: the test API server (no Kubernetes here), with one pod, web-1. */
  fake: FakeKubeApiServer;
  /** The proxy's listening port (TLS, as kubectl needs). */
  port: number;
  stop(): Promise<void>;
}

/**
 * What the CLI's Kubernetes tests run against: a proxy over TLS on loopback, with the cluster
 * `lab` (labels env=lab) from its config file, so the health check's first round at start finds
 * it, and a role `lab` that reaches it in the group lab-users.
 */
export async function startKubeLab(): Promise<KubeLab> {
  const fake = await startFakeKubeApiServer();
  fake.pods.add({ name: 'web-1' });
  const app = await createTestApp({
    https: await createSelfSigned(['localhost']),
    publicAddr: 'localhost:0',
    kubeClusters: [
      kubeClusterResourceSchema.parse({
        kind: 'kube_cluster',
        metadata: { name: 'lab', labels: { env: 'lab' } },
        spec: { server: fake.url, ca_cert: fake.caPem, credentials: { token: fake.token } },
      }),
    ],
  });
  await createRole(app, 'lab', {
    allow: { kubernetes_labels: { env: 'lab' }, kubernetes_groups: ['lab-users'] },
  });
  const { port } = await app.listenOnLoopback();
  app.context.addresses.report('web', { host: '127.0.0.1', port });
  return {
    app,
    fake,
    port,
    stop: async () => {
      await app.close();
      await fake.stop();
    },
  };
}

export interface CheckedKubeLab extends KubeLab {
  /** A user whose roles (lab, checked) reach the cluster and ask for an MFA check per session. */
  mona: TestUser;
  /** Her CLI home, signed in to the proxy (`POSTERN_HOME`). */
  home: string;
}

/** The lab with mona, whose roles ask for per-session MFA (require_session_mfa). */
export async function startCheckedKubeLab(): Promise<CheckedKubeLab> {
  const lab = await startKubeLab();
  await createSessionMfaRole(lab.app);
  const mona = await inviteUser(lab.app, 'mona', { roles: ['lab', 'checked'] });
  const { home } = await signedInHome(lab.app, lab.port, 'mona', ['lab', 'checked'], {
    tls: true,
  });
  return {
    ...lab,
    mona,
    home,
    stop: async () => {
      await lab.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}
