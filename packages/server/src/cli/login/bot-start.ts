import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiPaths, sshCertsResponseSchema, type SshCertsResponse } from '@postern/contracts';
import { proxyBaseUrl } from '../../agent/proxy-address.js';
import { ConfigError } from '../../config/config-error.js';
import { parseDuration } from '../../config/duration.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import { save, type CliDeps } from './login-flow.js';
import { PosternHome, type Profile } from './postern-home.js';
import { LoginRefusedError, ProxyClient } from './proxy-client.js';
import { signedClientFor } from './signed-client.js';

export interface BotStartFlags {
  /** Where the identity lives: a `postern login` home (POSTERN_HOME) of its own. */
  destination: string;
  /** Needed for the first join; later starts renew the identity found in the destination. */
  proxy?: string;
  token?: string;
  /** With an ID token instead of a token: the bot to join as (its OIDC rule decides). */
  bot?: string;
  /** Where the CI job's OpenID Connect ID token is: a file, or an environment variable. */
  oidcTokenFile?: string;
  oidcTokenEnv?: string;
  ttl?: string;
  /** Get or renew the certificate once, then exit (a CI job's step). */
  oneshot?: boolean;
  insecure?: boolean;
}

export interface BotStartDeps extends CliDeps {
  /** Ends the renewal loop (tests; the CLI runs until it is stopped). */
  signal?: AbortSignal;
  /** Waits `ms`; false when the loop should stop. Tests see the waits asked for and skip them. */
  pause?: (ms: number, signal: AbortSignal | undefined) => Promise<boolean>;
}

/** A renewal that fails for a passing reason is tried again this often, until the certificate ends. */
const retryMs = 10_000;

/**
 * `postern bot start`: a machine identity that stays fresh. The first start joins with the
 * single-use token; every later renewal is signed with the certificate held, for a new key, at
 * two thirds of its life. The destination is a `postern login` home, so `ssh -F
 * DIR/ssh_config`, and any postern command with POSTERN_HOME=DIR, act as the bot.
 */
export async function botStart(flags: BotStartFlags, deps: BotStartDeps): Promise<Profile> {
  const env = { ...deps.env, POSTERN_HOME: flags.destination };
  const bot = { flags, deps: { ...deps, env } };
  const ttl = flags.ttl === undefined ? undefined : parseDuration(flags.ttl, '--ttl');
  const held = await liveIdentity(new PosternHome(env));
  let profile: Profile;
  if (held) {
    if (flags.token)
      deps.print(
        `An identity is in ${flags.destination} already: renewing it (the token stays unused).`,
      );
    profile = await renew(bot, held, ttl);
  } else {
    profile = await join(bot, await joinProof(flags, deps.env), ttl);
  }
  deps.print(
    `Bot identity ${profile.user} in ${flags.destination}, valid until ${profile.expires}.`,
  );
  if (flags.oneshot) return profile;
  return keepRenewing(bot, profile, ttl);
}

interface Bot {
  flags: BotStartFlags;
  deps: BotStartDeps;
}

/** What the first join shows: the single-use token, or a CI job's ID token and the bot's name. */
type JoinProof = { proxy: string } & ({ token: string } | { id_token: string; bot_name: string });

async function joinProof(flags: BotStartFlags, env: NodeJS.ProcessEnv): Promise<JoinProof> {
  const oidc = flags.oidcTokenFile !== undefined || flags.oidcTokenEnv !== undefined;
  if (!flags.proxy || (!flags.token && !oidc)) {
    throw new ConfigError(
      `no live bot identity in ${flags.destination}: pass --proxy and the --token that postern bots add printed (or --bot with --oidc-token-env or --oidc-token-file)`,
    );
  }
  if (flags.token) {
    if (oidc) throw new ConfigError('give --token or an ID token (--oidc-token-…), not both');
    return { proxy: flags.proxy, token: flags.token };
  }
  if (!flags.bot) throw new ConfigError('an ID token joins as a bot: pass --bot NAME');
  const idToken = flags.oidcTokenFile
    ? await readFile(flags.oidcTokenFile, 'utf8')
    : env[flags.oidcTokenEnv ?? ''];
  if (!idToken?.trim()) {
    throw new ConfigError(
      flags.oidcTokenFile
        ? `${flags.oidcTokenFile} holds no ID token`
        : `the environment variable ${flags.oidcTokenEnv} holds no ID token`,
    );
  }
  return { proxy: flags.proxy, id_token: idToken.trim(), bot_name: flags.bot };
}

async function join(bot: Bot, { proxy, ...proof }: JoinProof, ttl: number | undefined) {
  const client = new ProxyClient(proxyBaseUrl(proxy), Boolean(bot.flags.insecure));
  const key = generateEd25519Key();
  const issued = await client.post(
    apiPaths.botJoin,
    { ...proof, pub_key: key.publicKey, ...(ttl ? { ttl } : {}) },
    sshCertsResponseSchema,
  );
  return store(bot, client, key, issued);
}

/** The next certificate, for a new key, asked for with a signature by the one held. */
async function renew(bot: Bot, profile: Profile, ttl: number | undefined): Promise<Profile> {
  const signed = await signedClientFor(profile);
  const key = generateEd25519Key();
  const body = { pub_key: key.publicKey, ...(ttl ? { ttl } : {}) };
  const issued = await signed.post(apiPaths.botRenew, body, sshCertsResponseSchema);
  return store(
    { ...bot, flags: { ...bot.flags, insecure: profile.insecure } },
    signed.client,
    key,
    issued,
  );
}

function store(
  bot: Bot,
  client: ProxyClient,
  key: { privateKeyPem: string },
  issued: SshCertsResponse,
): Promise<Profile> {
  const user = parseCertificate(issued.cert).keyId;
  return save(bot.flags, bot.deps, client, key, user, issued);
}

async function keepRenewing(bot: Bot, first: Profile, ttl: number | undefined): Promise<Profile> {
  const { print, signal, pause = pauseFor } = bot.deps;
  let profile = first;
  for (;;) {
    const cert = parseCertificate((await readFile(profile.cert_path, 'utf8')).trim());
    const start = cert.validAfter.getTime();
    const end = cert.validBefore.getTime();
    // validAfter is backdated a little for clock skew; two thirds of the rest is still early.
    let wait = start + ((end - start) * 2) / 3 - Date.now();
    for (;;) {
      if (!(await pause(Math.max(0, wait), signal))) return profile;
      try {
        profile = await renew(bot, profile, ttl);
        print(`Renewed: valid until ${profile.expires}.`);
        break;
      } catch (error) {
        // The proxy said no (a lock, a removed bot, a copied identity): trying again will not help.
        if (error instanceof LoginRefusedError) throw error;
        const left = end - Date.now();
        if (left <= 0)
          throw new ConfigError(
            `the bot's certificate ran out while the proxy was unreachable: ${(error as Error).message}`,
          );
        print(`warning: renewal failed (${(error as Error).message}); trying again`);
        wait = Math.min(retryMs, left / 2);
      }
    }
  }
}

/** False when the loop was told to stop. */
async function pauseFor(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return false;
  try {
    await sleep(ms, undefined, signal ? { signal } : {});
    return true;
  } catch {
    return false;
  }
}

/** The identity in the destination, if its certificate has more than a minute left. */
async function liveIdentity(home: PosternHome): Promise<Profile | undefined> {
  let profile: Profile;
  try {
    profile = await home.readProfile();
  } catch {
    return undefined;
  }
  return Date.parse(profile.expires) - Date.now() > 60_000 ? profile : undefined;
}
