import { userInfo } from 'node:os';
import path from 'node:path';
import {
  apiPaths,
  headlessLoginResponseSchema,
  headlessWaitResponseSchema,
  pingResponseSchema,
  sshCertsResponseSchema,
  type PingResponse,
  type SshCertsResponse,
} from '@postern/contracts';
import { proxyBaseUrl } from '../../agent/proxy-address.js';
import { ConfigError } from '../../config/config-error.js';
import { parseDuration } from '../../config/duration.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { ed25519PrivateKeyObject, generateEd25519Key } from '../../ssh/keys.js';
import { toOpenSshPrivateKey } from '../../ssh/openssh-key-format.js';
import type { Print } from '../table.js';
import { listNodes } from './nodes.js';
import { PosternHome, type Profile } from './postern-home.js';
import { Prompter, type PromptIo } from './prompt.js';
import { LoginRefusedError, ProxyClient } from './proxy-client.js';
import { ensureInclude, leavesOf, renderSshConfig } from './ssh-config.js';
import { ssoLogin } from './sso-login.js';

export interface LoginFlags {
  proxy: string;
  user?: string;
  ttl?: string;
  headless?: boolean;
  /** `--auth NAME`: single sign-on through the connector NAME, in a browser. */
  auth?: string;
  /** False with `--no-browser`: print the sign-in URL without opening it. */
  browser?: boolean;
  insecure?: boolean;
  /** False with `--no-ssh-config`. */
  sshConfig?: boolean;
}

export interface CliDeps {
  env: NodeJS.ProcessEnv;
  io: PromptIo;
  print: Print;
  /** Time between headless polls; tests shorten it. */
  pollIntervalMs?: number;
}

/**
 * `postern login`: a fresh Ed25519 key, a certificate for it (password and code, a browser's
 * approval with --headless, or a sign-in at an identity provider with --auth), then the files of postern-home.ts and the ssh_config that routes
 * `ssh node` through the proxy.
 */
export async function login(flags: LoginFlags, deps: CliDeps): Promise<Profile> {
  const { print } = deps;
  const base = proxyBaseUrl(flags.proxy);
  const insecure = Boolean(flags.insecure);
  if (insecure && base.protocol === 'https:') {
    print("warning: --insecure: the proxy's TLS certificate is not checked");
  }
  if (flags.auth !== undefined && (flags.headless || flags.user)) {
    throw new ConfigError(
      '--auth cannot be combined with --headless or --user: the identity provider names the user',
    );
  }
  const client = new ProxyClient(base, insecure);
  const ping = await client.get(apiPaths.ping, pingResponseSchema);
  const ttl = flags.ttl === undefined ? undefined : parseDuration(flags.ttl, '--ttl');
  if (ttl === 0) throw new ConfigError('--ttl must be longer than 0');
  const key = generateEd25519Key();
  const keyRequest = { pub_key: key.publicKey, ...(ttl ? { ttl } : {}) };
  if (flags.auth !== undefined) {
    const sso = await ssoLogin(client, ping, flags.auth, keyRequest, {
      print,
      openBrowser: flags.browser !== false,
    });
    // The provider named the user: the certificate's key id is their Postern user name.
    const user = parseCertificate(sso.certificate.cert).keyId;
    let profile: Profile;
    try {
      profile = await save(flags, deps, client, key, user, sso.certificate);
    } catch (error) {
      sso.finish(error);
      throw error;
    }
    sso.finish();
    return finished(flags, deps, profile);
  }
  const user = flags.user || deps.env.USER || userInfo().username;
  const request = { user, ...keyRequest };
  const issued = flags.headless
    ? await headlessLogin(client, request, deps)
    : await passwordLogin(client, ping, request, deps.io);
  return finished(flags, deps, await save(flags, deps, client, key, user, issued));
}

/**
 * Writes the key, certificate, known_hosts, profile and ssh_config of a login (or of a bot's
 * certificate: bot-start.ts).
 */
export async function save(
  flags: Pick<LoginFlags, 'insecure'>,
  deps: CliDeps,
  client: ProxyClient,
  key: { privateKeyPem: string },
  user: string,
  issued: SshCertsResponse,
): Promise<Profile> {
  const { print } = deps;
  const base = client.base;
  const insecure = Boolean(flags.insecure);
  const home = new PosternHome(deps.env);
  const keyPath = home.keyPath(base.hostname, user);
  const privateKey = toOpenSshPrivateKey(ed25519PrivateKeyObject(key.privateKeyPem), user);
  await home.writeKeys(keyPath, privateKey, issued.cert);
  await home.writeKnownHosts(issued.host_signers);
  const profile: Profile = {
    proxy: base.origin,
    insecure,
    user,
    cluster: issued.cluster_name,
    ssh_proxy_addr: issued.ssh_proxy_addr,
    expires: parseCertificate(issued.cert).validBefore.toISOString(),
    key_path: keyPath,
    cert_path: `${keyPath}-cert.pub`,
  };
  await home.writeProfile(profile);
  const nodes = await nodeNames(client, profile, print);
  await home.writeSshConfig(
    renderSshConfig({
      user,
      cluster: profile.cluster,
      sshProxyAddr: profile.ssh_proxy_addr,
      nodes,
      leaves: leavesOf(issued.host_signers),
      keyPath,
      certPath: profile.cert_path,
      knownHostsPath: home.knownHosts,
    }),
  );
  return profile;
}

/** The summary, and the Include line in ~/.ssh/config unless --no-ssh-config. */
async function finished(flags: LoginFlags, deps: CliDeps, profile: Profile): Promise<Profile> {
  const { print } = deps;
  const home = new PosternHome(deps.env);
  print(
    `Logged in as ${profile.user} to ${profile.cluster} (${profile.proxy}), valid until ${profile.expires}.`,
  );
  print(`Files are in ${home.dir}; ssh through the proxy with: postern ssh LOGIN@NODE`);
  if (flags.sshConfig !== false) {
    const userConfig = path.join(deps.env.HOME || userInfo().homedir, '.ssh', 'config');
    const done = await ensureInclude(userConfig, home.sshConfig);
    print(
      done === 'added'
        ? `Added "Include ${home.sshConfig}" at the top of ${userConfig}: plain ssh works too.`
        : `${userConfig} includes ${home.sshConfig} already.`,
    );
  }
  return profile;
}

interface CertRequest {
  user: string;
  pub_key: string;
  ttl?: number;
}

async function passwordLogin(
  client: ProxyClient,
  ping: PingResponse,
  request: CertRequest,
  io: PromptIo,
): Promise<SshCertsResponse> {
  if (ping.auth.second_factor === 'webauthn') {
    throw new LoginRefusedError(
      'this cluster accepts only hardware keys and passkeys: use postern login --headless',
    );
  }
  const prompter = new Prompter(io);
  try {
    const password = await prompter.secret(`Password for ${request.user}: `);
    const needsCode = ping.auth.second_factor !== 'off';
    const code = needsCode ? (await prompter.secret('Authenticator code: ')).trim() : undefined;
    return await client.post(
      apiPaths.sshCerts,
      {
        ...request,
        password: Buffer.from(password, 'utf8').toString('base64'),
        ...(code ? { otp_token: code } : {}),
      },
      sshCertsResponseSchema,
    );
  } catch (error) {
    if (error instanceof LoginRefusedError && error.message === 'invalid credentials') {
      throw new LoginRefusedError(
        'login failed: wrong user name, password or authenticator code' +
          ' (with only a hardware key or passkey, use --headless)',
      );
    }
    throw error;
  } finally {
    prompter.close();
  }
}

/** Headless: the browser approves, we poll once a second until approved, denied or expired. */
async function headlessLogin(
  client: ProxyClient,
  request: CertRequest,
  deps: CliDeps,
): Promise<SshCertsResponse> {
  const created = await client.post(apiPaths.headlessLogin, request, headlessLoginResponseSchema);
  deps.print(`Complete the login in your browser: ${created.url}`);
  deps.print(`(waiting until ${created.expires})`);
  const interval = deps.pollIntervalMs ?? 1000;
  for (;;) {
    const answer = await client.get(
      apiPaths.headlessWait(created.request_id),
      headlessWaitResponseSchema,
    );
    if (answer.state === 'approved') return answer.certificate;
    if (answer.state === 'denied') {
      throw new LoginRefusedError('the headless login was denied in the browser');
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** Node names for ssh_config; a user who may not list nodes still gets `*.<cluster>`. */
async function nodeNames(client: ProxyClient, profile: Profile, print: Print): Promise<string[]> {
  try {
    return (await listNodes(client, profile)).map((node) => node.hostname);
  } catch (error) {
    print(`warning: could not list nodes for ssh_config (${(error as Error).message})`);
    return [];
  }
}
