import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { ConfigError } from '../../config/config.js';
import { hostActor } from '../access/actor.js';
import type { AdminContext } from '../../cli/admin-context.js';
import { parseDoc, readDocuments } from '../../cli/documents.js';
import { yamlOf } from '../../cli/kinds.js';
import type { Print } from '../../cli/table.js';
import type { TraitMap } from '../rbac/templates.js';
import { applyLoginRules, LoginRuleError, loginRuleSchema, type LoginRule } from './login-rule.js';

export interface LoginRulesTestOptions {
  /** YAML or JSON: `{trait: [values]}` (a single value may be a string), as a provider sends. */
  traitsFile: string;
  /** Rules from files, checked as `create -f` checks them. */
  resourceFiles: string[];
  /** Also the rules stored in the cluster (which needs its storage). */
  fromCluster?: AdminContext;
  format: 'yaml' | 'json';
  now?: Date;
}

/**
 * `postern login_rule test`: what the rules make of some traits, without signing anyone in, so a
 * rule can be tried before it is saved (the reference's `tctl login_rule test`).
 */
export async function loginRulesTest(options: LoginRulesTestOptions, print: Print): Promise<void> {
  const traits = readTraits(options.traitsFile, await readText(options.traitsFile));
  const rules: LoginRule[] = [];
  for (const file of options.resourceFiles) {
    for (const doc of readDocuments(file, await readText(file))) {
      if (doc.kind !== 'login_rule') {
        throw new ConfigError(`${file}, line ${doc.firstLine}: a ${doc.kind}, not a login_rule`);
      }
      rules.push(parseDoc(loginRuleSchema, doc));
    }
  }
  if (options.fromCluster) {
    const named = new Set(rules.map((rule) => rule.metadata.name));
    const stored = await options.fromCluster.access.loginRules.list(hostActor('cli'));
    // A file's rule stands in for the stored one of its name: the edit being tried.
    rules.push(...stored.filter((rule) => !named.has(rule.metadata.name)));
  }
  if (rules.length === 0) {
    throw new ConfigError('no login rules to apply: give -f FILE, or --load-from-cluster');
  }
  let out: TraitMap;
  try {
    out = applyLoginRules(rules, traits, options.now ?? new Date());
  } catch (error) {
    if (error instanceof LoginRuleError) throw new ConfigError(error.message);
    throw error;
  }
  print(options.format === 'json' ? JSON.stringify(out, null, 2) : yamlOf(out).trimEnd());
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file === '-' ? '/dev/stdin' : file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The traits in: a map of names to lists of strings (a string alone is a list of one). */
function readTraits(file: string, text: string): TraitMap {
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${file}: expected traits, a map such as {email: [alice@example.com]}`);
  }
  const traits: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(value)) {
    const list: unknown[] = Array.isArray(values) ? values : [values];
    if (!list.every((item) => typeof item === 'string')) {
      throw new ConfigError(`${file}: trait ${name}: expected a string or a list of strings`);
    }
    traits[name] = list as string[];
  }
  return traits;
}
