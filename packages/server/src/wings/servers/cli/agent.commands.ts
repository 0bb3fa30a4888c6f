import {
  appNameSchema,
  appUriSchema,
  kubeClusterNameSchema,
  labelNamePattern,
} from '@postern/contracts';
import type { Command } from 'commander';
import { homedir } from 'node:os';
import path from 'node:path';
import type { AgentKubeCluster } from '../../../agent/kube-forwarder.js';
import type { AgentApp } from '../../../agent/app-forwarder.js';
import { parseDatabaseFlags as parseDatabases } from '../../../agent/database-flags.js';
import { parseDesktopFlags } from '../../../agent/desktop-flags.js';
import { ConfigError } from '../../../config/config-error.js';
import type { AgentOptions } from '../../../agent/agent.js';
import type { AgentLog } from '../../../agent/tunnel-client.js';

export interface AgentFlags {
  proxy: string;
  token?: string;
  labels?: string;
  dataDir: string;
  insecure?: boolean;
  app?: string[];
  db?: string[];
  kube?: string;
  kubeconfig?: string;
  kubeContext?: string;
  desktop?: string[];
}

/**
 * `postern agent --proxy HOST:3080 [--token T] [--labels k=v,...] [--app name=uri ...]
 * [--db name=postgres://host:port ...] [--kube NAME --kubeconfig FILE [--kube-context CTX]]
 * [--desktop name=vnc://host:port?password_file=FILE ...] [--data-dir DIR] [--insecure]`.
 */
export function addAgentCommand(program: Command, deps: { log?: AgentLog } = {}): void {
  program
    .command('agent')
    .description(
      "serve this host's SSH, and the apps, databases, Kubernetes clusters and desktops it reaches, through a reverse tunnel to a Postern proxy (no inbound port)",
    )
    .requiredOption(
      '--proxy <host:port>',
      "the proxy's web address, for example proxy.example.com:3080",
    )
    .option('--token <token>', 'a Node join token; needed only the first time')
    .option('--labels <k=v,...>', 'static labels for this host, for example env=prod,team=db')
    .option(
      '--app <name=uri>',
      'serve an app reached from this host, e.g. grafana=http://localhost:3000 (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--db <name=uri>',
      'serve a database reached from this host, e.g. orders=postgres://localhost:5432, with ' +
        '?sslrootcert=FILE (its CA) and ?sslmode=verify-full|verify-ca|insecure (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--kube <name>',
      'serve a Kubernetes cluster reached from this host, by its kubeconfig (--kubeconfig)',
    )
    .option(
      '--kubeconfig <file>',
      "the --kube cluster's kubeconfig (default: $KUBECONFIG or ~/.kube/config); its credential stays on this host",
    )
    .option(
      '--kube-context <context>',
      "the kubeconfig's context to use (default: its current one)",
    )
    .option(
      '--desktop <name=uri>',
      'serve a VNC desktop reached from this host, e.g. build=vnc://localhost:5901 with ' +
        '?password_file=FILE (its VNC password, which stays on this host) (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--data-dir <dir>', 'where the host key and the identity are kept', './postern-agent')
    .option('--insecure', "do not check the proxy's TLS certificate (a self-signed proxy)")
    .action(async (flags: AgentFlags) => {
      // Loaded here, as in every command: the agent's SSH service and logger would slow every
      // postern command's start.
      const { runAgent } = await import('../../../agent/agent.js');
      const log = deps.log ?? (await import('../../../logger.js')).createLogger('info');
      let agent;
      try {
        agent = await runAgent(agentOptionsFromFlags(flags, log));
      } catch (error) {
        // Bad input goes to main (one line, exit 2); anything else is one line and exit 1.
        if (error instanceof ConfigError) throw error;
        console.error(`postern agent: ${(error as Error).message}`);
        process.exitCode = 1;
        return;
      }
      const signal = await nextStopSignal();
      log.info({ signal }, 'agent stopping');
      // A second signal means "now": sessions are not worth waiting for any more.
      const exitNow = () => process.exit(130);
      process.once('SIGINT', exitNow).once('SIGTERM', exitNow);
      try {
        await agent.stop();
      } finally {
        process.off('SIGINT', exitNow).off('SIGTERM', exitNow);
      }
      log.info({}, 'agent stopped');
    });
}

export function agentOptionsFromFlags(flags: AgentFlags, log: AgentLog): AgentOptions {
  return {
    proxy: flags.proxy,
    token: flags.token,
    labels: parseLabels(flags.labels ?? ''),
    dataDir: flags.dataDir,
    insecure: flags.insecure === true,
    apps: parseApps(flags.app ?? []),
    databases: parseDatabases(flags.db ?? []),
    kubeClusters: parseKube(flags),
    desktops: parseDesktopFlags(flags.desktop ?? []),
    log,
  };
}

/** `--app grafana=http://localhost:3000`, each checked as the app resource's name and uri. */
export function parseApps(values: readonly string[]): AgentApp[] {
  const apps: AgentApp[] = [];
  for (const value of values) {
    const equals = value.indexOf('=');
    const name = appNameSchema.safeParse(equals > 0 ? value.slice(0, equals).trim() : '');
    if (!name.success) {
      throw new ConfigError(`--app: expected name=uri with a DNS label name, got '${value}'`);
    }
    const uri = appUriSchema.safeParse(value.slice(equals + 1).trim());
    if (!uri.success) {
      throw new ConfigError(`--app ${name.data}: ${uri.error.issues[0]?.message ?? 'bad uri'}`);
    }
    if (apps.some((app) => app.name === name.data)) {
      throw new ConfigError(`--app: ${name.data} is given twice`);
    }
    apps.push({ name: name.data, uri: uri.data });
  }
  return apps;
}

/** `--kube NAME` with its kubeconfig and context; none without `--kube`. */
export function parseKube(flags: AgentFlags): AgentKubeCluster[] {
  if (!flags.kube) {
    if (flags.kubeconfig || flags.kubeContext) {
      throw new ConfigError('--kubeconfig and --kube-context go with --kube NAME');
    }
    return [];
  }
  const name = kubeClusterNameSchema.safeParse(flags.kube);
  if (!name.success)
    throw new ConfigError(`--kube: ${name.error.issues[0]?.message ?? 'bad name'}`);
  const kubeconfig =
    flags.kubeconfig ??
    process.env.KUBECONFIG?.split(path.delimiter).find(Boolean) ??
    path.join(homedir(), '.kube', 'config');
  return [{ name: name.data, kubeconfig, context: flags.kubeContext }];
}

/** `env=prod,team=db` → {env: 'prod', team: 'db'}; names follow the rules of every node label. */
export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of text.split(',').map((each) => each.trim())) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals > 0 ? pair.slice(0, equals).trim() : '';
    if (!labelNamePattern.test(name)) {
      throw new ConfigError(
        `--labels: expected name=value pairs separated by commas, got '${pair}'`,
      );
    }
    if (Object.hasOwn(labels, name)) throw new ConfigError(`--labels: ${name} is given twice`);
    labels[name] = pair.slice(equals + 1).trim();
  }
  return labels;
}

function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  });
}
