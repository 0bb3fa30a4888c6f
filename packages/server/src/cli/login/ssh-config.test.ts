import { describe, expect, it } from 'vitest';
import { leavesOf, renderSshConfig } from './ssh-config.js';

describe('ssh_config for leaf clusters', () => {
  const signers = [
    '@cert-authority * ssh-ed25519 AAAAroot postern-host-ca',
    '@cert-authority *.lab ssh-ed25519 AAAAlab postern-host-ca@lab',
    '@cert-authority *.edge.example.com ssh-ed25519 AAAAedge postern-host-ca@edge.example.com',
  ];

  it('reads the leaves from the known_hosts lines a login gets, not the root line', () => {
    expect(leavesOf(signers)).toEqual(['lab', 'edge.example.com']);
    expect(leavesOf(['@cert-authority *.a b c', 'web-1 ssh-ed25519 AAAA'])).toEqual(['a']);
  });

  it("routes each leaf's names through the root's jump host, with the login's certificate", () => {
    const text = renderSshConfig({
      user: 'alice',
      cluster: 'root',
      sshProxyAddr: 'proxy.test:3023',
      nodes: ['web-1'],
      leaves: leavesOf(signers),
      keyPath: '/k',
      certPath: '/k-cert.pub',
      knownHostsPath: '/known_hosts',
    });
    const patterns = 'web-1 *.root *.lab *.edge.example.com';
    expect(text).toContain(`Host ${patterns}\n    ProxyJump alice@proxy.test:3023\n`);
    expect(text).toContain(`Host proxy.test ${patterns}\n    IdentityFile /k\n`);
  });
});
