import type { NodeJson } from '@postern/contracts';

/**
 * `postern ssh root@env=prod,team=web uptime`: a command on every node whose labels match, as
 * `tsh ssh` runs one on `user@label=value`. Each node's output comes line by line, prefixed with
 * `[hostname] `, on the stream it came on.
 */

/** ssh's options that take a value (ssh(1)): their value is not the destination. */
const optionsWithValue = new Set('BbcDEeFIiJLlmOopQRSWw');

export interface SshArguments {
  /** Everything before the destination, as given. */
  options: string[];
  /** `[login@]host` */
  destination: string;
  command: string[];
}

/** ssh's arguments split at the destination, or undefined when there is none. */
export function splitSshArguments(args: readonly string[]): SshArguments | undefined {
  for (let at = 0; at < args.length; at += 1) {
    const arg = args[at]!;
    if (arg === '--') {
      const destination = args[at + 1];
      if (destination === undefined) return undefined;
      return { options: args.slice(0, at + 1), destination, command: args.slice(at + 2) };
    }
    if (!arg.startsWith('-') || arg === '-') {
      return { options: args.slice(0, at), destination: arg, command: args.slice(at + 1) };
    }
    // `-p 22` and `-tp 22` take the next argument; `-p22`, `-tt` and `-ob` (= `-o b`) do not.
    const flags = arg.slice(1);
    const valueAt = [...flags].findIndex((flag) => optionsWithValue.has(flag));
    if (valueAt === flags.length - 1) at += 1;
  }
  return undefined;
}

/**
 * `--cluster LEAF` (or `--cluster=LEAF`) taken out of ssh's options, before the destination: ssh
 * has no such option, and a trusted leaf's servers are reached through this proxy as
 * `<name>.<leaf>`. Returns the leaf, if given, and ssh's arguments without it.
 */
export function takeClusterOption(args: readonly string[]): { cluster?: string; args: string[] } {
  const rest: string[] = [];
  let cluster: string | undefined;
  for (let at = 0; at < args.length; at += 1) {
    const arg = args[at]!;
    if (arg === '--' || !arg.startsWith('-') || arg === '-') {
      rest.push(...args.slice(at));
      break;
    }
    if (arg === '--cluster' || arg.startsWith('--cluster=')) {
      cluster = arg === '--cluster' ? args[(at += 1)] : arg.slice('--cluster='.length);
      if (!cluster) throw new Error('--cluster names a trusted leaf cluster');
      continue;
    }
    rest.push(arg);
    const flags = arg.slice(1);
    const valueAt = [...flags].findIndex((flag) => optionsWithValue.has(flag));
    if (valueAt === flags.length - 1 && at + 1 < args.length) rest.push(args[(at += 1)]!);
  }
  return { ...(cluster ? { cluster } : {}), args: rest };
}

/**
 * `env=prod,team=web` as the labels it asks for; undefined for a host name. A host has no `=`,
 * so any `=` makes it a selector, and a selector must be whole `name=value` pairs.
 */
export function labelSelector(host: string): Map<string, string> | undefined {
  if (!host.includes('=')) return undefined;
  const wanted = new Map<string, string>();
  for (const pair of host.split(',')) {
    const match = /^([^=\s]+)=([^=\s]*)$/.exec(pair);
    if (!match) throw new Error(`not a label selector: ${host} (use name=value[,name=value])`);
    wanted.set(match[1]!, match[2]!);
  }
  return wanted;
}

/** The nodes carrying every label of the selector, in the listing's order. */
export function nodesMatching(nodes: readonly NodeJson[], wanted: Map<string, string>): NodeJson[] {
  return nodes.filter((node) =>
    [...wanted].every(([name, value]) =>
      node.tags.some((tag) => tag.name === name && tag.value === value),
    ),
  );
}

/** One ssh run with its output piped to `sink` and no stdin; resolves with its exit code. */
export type PipedSshRunner = (
  args: string[],
  sink: { stdout(chunk: Buffer): void; stderr(chunk: Buffer): void },
) => Promise<number>;

export interface FanOut {
  nodes: readonly NodeJson[];
  /** `login@` or '' */
  loginPrefix: string;
  cluster: string;
  options: readonly string[];
  command: readonly string[];
  run: PipedSshRunner;
  write: { stdout(text: string): void; stderr(text: string): void };
  /** How many ssh processes run at once. */
  parallel?: number;
}

/**
 * Runs the command on each node and returns the exit code: 0 when every node's was 0, else the
 * first failing node's (in the listing's order), with the failures named on stderr.
 */
export async function runOnNodes(fanOut: FanOut): Promise<number> {
  const { nodes, write } = fanOut;
  const codes = new Array<number>(nodes.length);
  let next = 0;
  const worker = async () => {
    while (next < nodes.length) {
      const index = next++;
      codes[index] = await runOnNode(fanOut, nodes[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(fanOut.parallel ?? 8, nodes.length) }, worker));
  const failed = nodes.flatMap((node, index) =>
    codes[index] === 0 ? [] : [`${node.hostname} (exit ${codes[index]})`],
  );
  if (failed.length === 0) return 0;
  write.stderr(`postern: ${failed.length} of ${nodes.length} nodes failed: ${failed.join(', ')}\n`);
  return codes.find((code) => code !== 0)!;
}

async function runOnNode(fanOut: FanOut, node: NodeJson): Promise<number> {
  const prefix = `[${node.hostname}] `;
  const stdout = new PrefixedLines(prefix, fanOut.write.stdout);
  const stderr = new PrefixedLines(prefix, fanOut.write.stderr);
  // By id under the cluster's name: the generated config jumps through the proxy for
  // `*.<cluster>`, even for a node that came after login, and two nodes may share a hostname.
  const destination = `${fanOut.loginPrefix}${node.id}.${fanOut.cluster}`;
  const args = [...fanOut.options, destination, ...fanOut.command];
  const code = await fanOut.run(args, {
    stdout: (chunk) => stdout.push(chunk),
    stderr: (chunk) => stderr.push(chunk),
  });
  stdout.end();
  stderr.end();
  return code;
}

/** Whole lines, each written at once with the node's prefix, so nodes never mix mid-line. */
class PrefixedLines {
  private pending = '';
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly prefix: string,
    private readonly write: (text: string) => void,
  ) {}

  push(chunk: Buffer): void {
    const text = this.pending + this.decoder.decode(chunk, { stream: true });
    const lastBreak = text.lastIndexOf('\n');
    if (lastBreak === -1) {
      this.pending = text;
      return;
    }
    this.pending = text.slice(lastBreak + 1);
    const lines = text.slice(0, lastBreak).split('\n');
    this.write(lines.map((line) => `${this.prefix}${line}\n`).join(''));
  }

  end(): void {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    if (rest) this.write(`${this.prefix}${rest}\n`);
  }
}
