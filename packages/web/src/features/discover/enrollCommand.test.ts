import { describe, expect, it } from 'vitest';
import { emptyEnrollInput } from './enrollInput';
import { enrollCommand, shellWord } from './enrollCommand';

const proxy = { addr: 'proxy.example.com:3080', origin: 'https://proxy.example.com:3080' };
const token = '0123456789abcdef0123456789abcdef';
const base = { token, proxy, selfSigned: false, input: emptyEnrollInput };

describe('shellWord', () => {
  it('leaves plain words alone and single-quotes the rest, quotes included', () => {
    expect(shellWord('/home/ops/.kube/config')).toBe('/home/ops/.kube/config');
    expect(shellWord('a b')).toBe("'a b'");
    expect(shellWord("it's;rm -rf /")).toBe(`'it'\\''s;rm -rf /'`);
    expect(shellWord('https://p/x.sh?name=a&uri=b')).toBe("'https://p/x.sh?name=a&uri=b'");
  });
});

describe('enrollCommand', () => {
  it('runs the agent as root for a server', () => {
    expect(enrollCommand({ ...base, kind: 'server' })).toBe(
      `sudo postern agent --proxy proxy.example.com:3080 --token ${token} --data-dir /var/lib/postern/agent`,
    );
  });

  it('names a proxy served over plain HTTP by its URL (host:port means HTTPS to the agent)', () => {
    const plain = { addr: '127.0.0.1:3080', origin: 'http://127.0.0.1:3080' };
    expect(enrollCommand({ ...base, proxy: plain, kind: 'server' })).toContain(
      '--proxy http://127.0.0.1:3080 ',
    );
  });

  it("pipes an OpenSSH host's install script to bash", () => {
    expect(enrollCommand({ ...base, kind: 'openssh' })).toBe(
      `curl -fsSL https://proxy.example.com:3080/scripts/${token}/install-node.sh | sudo bash`,
    );
  });

  it('quotes an app link with its name and address in the query', () => {
    const input = { ...emptyEnrollInput, name: ' grafana ', uri: 'http://localhost:3000' };
    expect(enrollCommand({ ...base, kind: 'app', input })).toBe(
      `curl -fsSL 'https://proxy.example.com:3080/scripts/${token}/install-app.sh?name=grafana&uri=http%3A%2F%2Flocalhost%3A3000' | sudo bash`,
    );
  });

  it('tells curl, the script and the agent to accept a self-signed proxy when asked', () => {
    const input = { ...emptyEnrollInput, name: 'orders', uri: 'postgres://db:5432' };
    expect(enrollCommand({ ...base, kind: 'database', input, selfSigned: true })).toBe(
      `curl -fsSLk 'https://proxy.example.com:3080/scripts/${token}/install-database.sh?name=orders&uri=postgres%3A%2F%2Fdb%3A5432' | sudo POSTERN_INSECURE_TLS=1 bash`,
    );
    expect(enrollCommand({ ...base, kind: 'server', selfSigned: true })).toMatch(/ --insecure$/);
  });

  it("serves a Kubernetes cluster from the kubeconfig's own user", () => {
    const input = { ...emptyEnrollInput, name: 'prod', kubeconfig: '/home/o ps/.kube/config' };
    expect(enrollCommand({ ...base, kind: 'kubernetes', input })).toBe(
      `postern agent --proxy proxy.example.com:3080 --token ${token} --kube prod --kubeconfig '/home/o ps/.kube/config' --data-dir ~/.postern/kube-prod`,
    );
  });
});
