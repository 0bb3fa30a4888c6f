import { kubeClusterResourceSchema } from '@postern/contracts';
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { AdminContext } from '../../../cli/admin-context.js';
import { addCliKind, type CliKind, type TableView } from '../../../cli/kinds.js';
import { commandGroup, print } from '../../../cli/program.js';
import { labelsCell } from '../../../cli/table.js';
import { ConfigError } from '../../../config/config.js';
import { asResource } from '../../../modules/inventory/resource-catalog.js';
import { KubeClustersService, type KubeClusterRow } from '../kube-clusters.service.js';
import { kubeClusterName, kubeContextFor, kubeLogin, listKubeClusters } from './kube-client.js';
import { addKubeCredentialsCommand } from './kube-credentials.command.js';
import { proxyKube } from './kube-local-proxy.js';

/** The clusters in storage, loaded for one command. */
async function withClusters<T>(ctx: AdminContext, run: (c: KubeClustersService) => Promise<T>) {
  const clusters = new KubeClustersService(ctx.backend, ctx.audit, { configured: [] });
  await clusters.inventory.start();
  try {
    return await run(clusters);
  } finally {
    await clusters.close();
  }
}

const columns: TableView<KubeClusterRow> = {
  header: ['NAME', 'SERVER', 'SOURCE', 'STATUS', 'LABELS'],
  row: ({ resource, status, labels }) => [
    resource.metadata.name,
    resource.spec.server ??
      (resource.spec.kubeconfig ? `kubeconfig ${resource.spec.kubeconfig}` : '(agent)'),
    resource.source,
    status,
    labelsCell(labels),
  ],
};

/** Never shown: a cluster's credential stays in storage. */
const withoutSecrets = (row: KubeClusterRow) => {
  const resource = asResource(row.resource);
  const { credentials, ...spec } = resource.spec;
  return { ...resource, spec: credentials ? { ...spec, credentials: '(hidden)' } : spec };
};

/** `get kube_cluster`, `create -f kube.yaml`, `rm kube_cluster/NAME`. */
export const kubeClusterCliKind: CliKind<KubeClusterRow> = {
  kind: 'kube_cluster',
  words: ['kube_cluster', 'kube_clusters', 'kube'],
  noun: 'Kubernetes cluster',
  title: 'Kubernetes cluster',
  refExample: 'kube_cluster/NAME',
  defaultFormat: 'text',
  list: (ctx) => withClusters(ctx, async (clusters) => clusters.rows()),
  nameOf: (row) => row.resource.metadata.name,
  text: columns,
  yaml: (row) => stringify(withoutSecrets(row)),
  json: (row) => withoutSecrets(row),
  create: async (ctx, doc, force, actor) => {
    const parsed = kubeClusterResourceSchema.safeParse(doc.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(
        `kube_cluster (line ${doc.firstLine}): ${issue.path.join('.') || 'document'}: ${issue.message}`,
      );
    }
    const spec = parsed.data.spec;
    if (!spec.server && !spec.kubeconfig) {
      throw new ConfigError(
        `kube_cluster (line ${doc.firstLine}): spec: name the API server (server) or a kubeconfig`,
      );
    }
    const { created } = await withClusters(ctx, (c) => c.create(parsed.data, actor, force));
    return `Kubernetes cluster ${parsed.data.metadata.name} has been ${created ? 'created' : 'overwritten'}`;
  },
  remove: (ctx, name, actor) => withClusters(ctx, (c) => c.remove(name, actor)),
};

/**
 * The Kubernetes wing's commands: `postern kube ls|login|exec`, `postern proxy kube`, and the
 * kube_cluster kind for get, create and rm.
 */
export function addKubeCommands(program: Command): void {
  addCliKind(kubeClusterCliKind);
  const kube = commandGroup(
    program,
    'kube',
    'reach Kubernetes clusters with kubectl through the proxy',
  );

  kube
    .command('ls')
    .description(
      'list the Kubernetes clusters you may reach, with the users and groups your roles allow',
    )
    .option('--cluster <leaf>', "a trusted leaf cluster's Kubernetes clusters, through this one")
    .action((flags: { cluster?: string }) => listKubeClusters(process.env, print, flags.cluster));

  kube
    .command('login <name>')
    .description('get a certificate for the cluster NAME and make it the current kubectl context')
    .option('--no-set-context', 'write the context without making it current')
    .option('--cluster <leaf>', "a trusted leaf cluster's Kubernetes cluster, through this one")
    .action(async (asked: string, flags: { setContext: boolean; cluster?: string }) => {
      const name = await kubeClusterName(process.env, asked, flags.cluster);
      const login = await kubeLogin(process.env, name, { setCurrent: flags.setContext });
      const { context, kubeconfig, expires, checked } = login;
      print(
        checked
          ? `Logged in to Kubernetes cluster ${name}. Your roles require an MFA check for each session: kubectl asks for your authenticator code, and a check lasts a minute.`
          : `Logged in to Kubernetes cluster ${name} until ${expires}.`,
      );
      print(
        flags.setContext
          ? `kubectl now uses context ${context.name} (${kubeconfig}).`
          : `Use it with: kubectl --context ${context.name} (${kubeconfig})`,
      );
    });

  addKubeCredentialsCommand(kube);

  kube
    .command('exec <name> <pod> [command...]')
    .description('run kubectl exec in a pod of the cluster NAME (interactive when a terminal)')
    .option('-n, --namespace <namespace>', "the pod's namespace", 'default')
    .option('-c, --container <container>', "the container (default: the pod's first)")
    .option('--cluster <leaf>', "a trusted leaf cluster's Kubernetes cluster, through this one")
    .action(
      async (
        asked: string,
        pod: string,
        command: string[],
        flags: { namespace: string; container?: string; cluster?: string },
      ) => {
        const name = await kubeClusterName(process.env, asked, flags.cluster);
        const context = await kubeContextFor(process.env, name);
        const tty = process.stdin.isTTY ? ['-it'] : ['-i'];
        const args = [
          '--context',
          context,
          'exec',
          ...tty,
          '-n',
          flags.namespace,
          ...(flags.container ? ['-c', flags.container] : []),
          pod,
          '--',
          ...(command.length > 0 ? command : ['/bin/sh']),
        ];
        process.exitCode = await runKubectl(args);
      },
    );

  commandGroup(program, 'proxy', 'local listeners that tunnel to resources through the proxy')
    .command('kube <name>')
    .description(
      'serve the cluster NAME on 127.0.0.1 without TLS, for tools that need a plain local endpoint',
    )
    .option('--port <port>', 'the local port (default: a free one, printed)', '0')
    .option('--cluster <leaf>', "a trusted leaf cluster's Kubernetes cluster, through this one")
    .action(async (asked: string, flags: { port: string; cluster?: string }) => {
      const name = await kubeClusterName(process.env, asked, flags.cluster);
      const local = await proxyKube(process.env, name, Number(flags.port), {
        log: (line) => console.error(`postern: ${line}`),
      });
      print(
        `Serving Kubernetes cluster ${name} on http://127.0.0.1:${local.port} (Ctrl-C to stop)`,
      );
      print(`Use it with: KUBECONFIG=${local.kubeconfig} kubectl get pods`);
    });
}

function runKubectl(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', args, { stdio: 'inherit' });
    child.once('error', (error) =>
      reject(new ConfigError(`cannot start kubectl: ${error.message} (is it installed?)`)),
    );
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
