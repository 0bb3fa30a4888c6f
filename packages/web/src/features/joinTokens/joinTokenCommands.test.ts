import { describe, expect, it } from 'vitest';
import { enrollCommand } from '../discover/enrollCommand';
import { emptyEnrollInput } from '../discover/enrollInput';
import { agentFlags, joinTokenCommands } from './joinTokenCommands';

const proxy = { addr: 'proxy.example.com:443', origin: 'https://proxy.example.com' };
const token = 'abc123';

describe('joinTokenCommands', () => {
  it('a Node token: the agent and the OpenSSH install script, as Enroll New Resource writes them', () => {
    const commands = joinTokenCommands({ roles: ['Node'], token, proxy, selfSigned: false });
    expect(commands.map((c) => c.id)).toEqual(['agent', 'openssh']);
    expect(commands[0]?.command).toBe(
      'sudo postern agent --proxy proxy.example.com:443 --token abc123 --data-dir /var/lib/postern/agent',
    );
    expect(commands[1]?.command).toBe(
      'curl -fsSL https://proxy.example.com/scripts/abc123/install-node.sh | sudo bash',
    );
    for (const kind of ['server', 'openssh'] as const) {
      const same = enrollCommand({ kind, input: emptyEnrollInput, token, proxy, selfSigned: true });
      expect(
        joinTokenCommands({ roles: ['Node'], token, proxy, selfSigned: true }).map(
          (c) => c.command,
        ),
      ).toContain(same);
    }
  });

  it('other roles: the agent only, never the OpenSSH script a Node token alone may run', () => {
    for (const role of ['App', 'Db', 'Kube', 'WindowsDesktop'] as const) {
      const commands = joinTokenCommands({ roles: [role], token, proxy, selfSigned: false });
      expect(commands.map((c) => c.id)).toEqual(['agent']);
    }
  });

  it('says which agent flags serve what the roles allow', () => {
    expect(agentFlags(['Node'])).toEqual([]);
    expect(agentFlags(['Node', 'App', 'Kube']).map((f) => f.flag)).toEqual([
      '--app NAME=URI',
      '--kube NAME --kubeconfig PATH',
    ]);
  });
});
