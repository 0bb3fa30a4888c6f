import { parse } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../config/config.js';
import { ApiError } from '../errors.js';
import { RoleValidationError } from '../access-control/rbac/index.js';

/** One YAML document of a file given to `postern create -f`, with where it starts. */
export interface Document {
  text: string;
  /** 1-based line of the document's first line in the file. */
  firstLine: number;
  kind: string;
  value: Record<string, unknown>;
}

/**
 * Splits a file at `---` lines into its documents, skipping empty ones, and reads each one's
 * kind. A problem names the file and the line in the FILE, on one line (exit code 2).
 */
export function readDocuments(file: string, text: string): Document[] {
  const documents: Document[] = [];
  let lines: string[] = [];
  let firstLine = 1;
  const flush = (nextLine: number) => {
    const body = lines.join('\n');
    if (body.replace(/#.*$/gm, '').trim()) documents.push(readOne(file, body, firstLine));
    lines = [];
    firstLine = nextLine;
  };
  text.split(/\r?\n/).forEach((line, index) => {
    if (/^---(\s.*)?$/.test(line)) flush(index + 2);
    else lines.push(line);
  });
  flush(0);
  if (documents.length === 0) throw new ConfigError(`${file}: no resources in the file`);
  return documents;
}

function readOne(file: string, text: string, firstLine: number): Document {
  let value: unknown;
  try {
    value = parse(text, { prettyErrors: false });
  } catch (error) {
    const at = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line ?? 1;
    throw fileError(file, firstLine + at - 1, (error as Error).message.split('\n')[0] ?? '');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw fileError(file, firstLine, 'expected a resource (a map with kind, version, metadata)');
  }
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== 'string') throw fileError(file, firstLine, 'the resource has no kind');
  return { text, firstLine, kind, value: value as Record<string, unknown> };
}

/** Runs a step on a document, turning its errors into one line naming the file and line. */
export async function inDocument<T>(file: string, doc: Document, step: () => Promise<T>) {
  try {
    return await step();
  } catch (error) {
    if (error instanceof RoleValidationError) {
      const issues = error.issues.map(
        (issue) => `line ${doc.firstLine + issue.line - 1}: ${issue.path}: ${issue.message}`,
      );
      throw new ConfigError(`${file}: ${issues.join('; ')}`);
    }
    if (error instanceof ConfigError || error instanceof ApiError) {
      const where = `${file}, ${doc.kind} at line ${doc.firstLine}`;
      error.message = `${where}: ${error.message.replace(/\n/g, '; ')}`;
    }
    throw error;
  }
}

const fileError = (file: string, line: number, message: string) =>
  new ConfigError(`${file}: line ${line}: ${message}`);

/** A document checked against a schema; its problems on one line (exit code 2). */
export function parseDoc<S extends z.ZodType>(schema: S, doc: Document): z.output<S> {
  const result = schema.safeParse(doc.value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new ConfigError(problems.join('; '));
}
