import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlUsing } from '../../../testing/fake-kube/kubectl.testkit.js';
import { nextTotp } from '../../../testing/identity.testkit.js';
import { startCheckedKubeLab, type CheckedKubeLab } from '../../../testing/kube-lab.testkit.js';
import { proxyKube } from './kube-local-proxy.js';

// `postern proxy kube` for a user whose roles ask for an MFA check for each session: the local
// endpoint asks on its own terminal when a request needs a new checked certificate. The real
// kubectl, through a listening Postern over TLS, to the fake API server (FAKE: no Kubernetes here).
// A lab of its own: the app's clock moves ahead with each code, and the listener's TLS checks
// certificates (backdated a minute) against real time.

let lab: CheckedKubeLab;

beforeAll(async () => {
  lab = await startCheckedKubeLab();
});

afterAll(() => lab?.stop());

describe('postern proxy kube under require_session_mfa', () => {
  it('postern proxy kube asks on its own terminal when kubectl comes, and not again within 45 s', async () => {
    const env = { POSTERN_HOME: lab.home, HOME: lab.home };
    const questions: string[] = [];
    let code = '000000';
    const askCode = async (question: string) => {
      questions.push(question);
      return code;
    };
    const logged: string[] = [];
    const local = await proxyKube(env, 'lab', 0, { askCode, log: (line) => logged.push(line) });
    const kubectl = await kubectlUsing(local.kubeconfig);
    try {
      expect(questions).toEqual([]);
      // A wrong code: kubectl and the proxy's terminal get the reason.
      const refused = await kubectl.run(['get', '--raw', '/api/v1/namespaces/default/pods']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('postern proxy kube: the MFA check for this session failed');
      expect(questions[0]).toContain('Authenticator code for kube lab');
      expect(logged[0]).toContain('the MFA check for this session failed');

      code = nextTotp(lab.app, lab.mona.totpSecret!);
      const asked = questions.length;
      const pods = await kubectl.run(['get', 'pods']);
      expect(pods.stderr).toBe('');
      expect(pods.stdout).toContain('web-1');
      const again = await kubectl.run(['get', 'pods', '-o', 'name']);
      expect(again.stdout).toContain('pod/web-1');
      const exec = await kubectl.run(['exec', 'web-1', '--', 'echo', 'checked']);
      expect(exec.stdout).toBe('checked\n');
      expect(questions.length).toBe(asked + 1);
    } finally {
      local.close();
      await kubectl.cleanup();
    }
  });
});
