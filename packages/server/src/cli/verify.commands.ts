import type { Command } from 'commander';
import type { ConfigFlags } from '../config/config.js';
import { notFound } from '../errors.js';
import {
  verifyAuditChain,
  type AuditChainReport,
  type AuditChainSource,
} from '../modules/audit/audit-chain.js';
import type { RecordingStore } from '../modules/recordings/recording-store.js';
import { verifyRecording, type RecordingVerdict } from '../modules/recordings/recording-verify.js';
import type { AdminContext } from './admin-context.js';
import { print, withAdmin, withStorageFlags } from './program.js';
import type { Print } from './table.js';

/**
 * `postern verify audit` and `postern verify recordings [SID]` (docs/verify.md): check the hash
 * chains over the storage a server uses. They print OK with counts or name the first altered
 * row or chunk; tampering makes the process exit with code 1.
 */

const isChainSource = (store: unknown): store is AuditChainSource =>
  typeof (store as Partial<AuditChainSource>).chainRows === 'function' &&
  typeof (store as Partial<AuditChainSource>).chainState === 'function';

/** Returns true when the log is intact. */
export async function verifyAudit(ctx: AdminContext, out: Print): Promise<boolean> {
  // Loaded here: the stores' drivers (PostgreSQL, SQLite) would slow every command's start.
  const { openAuditStore } = await import('../modules/audit/index.js');
  // The context's store may be wrapped (a spool in front of it); the chain lives in the store.
  const own = isChainSource(ctx.audit)
    ? undefined
    : await openAuditStore(ctx.config.audit, ctx.config.clusterName);
  const source = (own ?? ctx.audit) as unknown;
  try {
    if (!isChainSource(source)) throw new Error('this audit store keeps no hash chain');
    const report = await verifyAuditChain(source);
    out(describeAudit(report));
    return report.problem === undefined;
  } finally {
    await own?.close();
  }
}

function describeAudit(report: AuditChainReport): string {
  const unchained =
    report.unchained > 0
      ? ` ${events(report.unchained, 'older event')} ${report.unchained === 1 ? 'is' : 'are'} unchained before ${report.unchainedBefore ?? 'now'} (written before the chain existed).`
      : '';
  const { problem } = report;
  if (!problem) return `Audit log OK: ${events(report.verified)} verified.${unchained}`;
  return (
    `Audit log TAMPERED at position ${problem.position} (event ${problem.uid}, ${problem.time}): ` +
    `${problem.reason}. ${events(report.verified)} before it verified.${unchained}`
  );
}

const events = (count: number, noun = 'event') => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** One recording, or every sealed one. Returns true when none is damaged. */
export async function verifyRecordings(
  ctx: AdminContext,
  sid: string | undefined,
  out: Print,
): Promise<boolean> {
  // Reads only: its owner id takes nothing over and uploads nothing (it spooled nothing).
  // Loaded here: the stores' drivers (S3, PostgreSQL, SQLite) would slow every command's start.
  const { openRecordingStore } = await import('../modules/recordings/open-recording-store.js');
  const store = openRecordingStore(ctx.config, { owner: `postern-verify-${process.pid}` });
  // A bucket's client and spool need opening; a directory's init would seal the recordings a
  // running server is writing, so it is left alone.
  if (ctx.config.recordings.s3) await store.init();
  try {
    return await verifyEach(store, sid, out);
  } finally {
    await store.close();
  }
}

async function verifyEach(
  store: RecordingStore,
  sid: string | undefined,
  out: Print,
): Promise<boolean> {
  const sids = sid === undefined ? await store.listSealed() : [sid];
  const verdicts: RecordingVerdict[] = [];
  for (const each of sids) {
    const verdict = await verifyRecording(store, each);
    if (!verdict) throw notFound(`no sealed recording of session ${each}`);
    verdicts.push(verdict);
    if (verdict.status === 'damaged') out(describeDamage(verdict));
  }
  const damaged = verdicts.filter((v) => v.status === 'damaged').length;
  const unchained = verdicts.filter((v) => v.status === 'unchained').length;
  const ok = verdicts.length - damaged - unchained;
  const older =
    unchained > 0 ? ` ${unchained} sealed before chunk hashes could not be checked.` : '';
  if (damaged > 0) out(`Recordings DAMAGED: ${damaged} of ${verdicts.length}.${older}`);
  else out(`Recordings OK: ${ok} verified.${older}`);
  return damaged === 0;
}

function describeDamage(verdict: Extract<RecordingVerdict, { status: 'damaged' }>): string {
  const where =
    verdict.chunk !== undefined
      ? `chunk ${verdict.chunk} at byte ${verdict.offset ?? 0} of ${verdict.file}`
      : verdict.offset !== undefined
        ? `byte ${verdict.offset} of ${verdict.file}`
        : verdict.file;
  return `Recording ${verdict.sid} DAMAGED: ${where}: ${verdict.reason}.`;
}

/** `postern verify audit|recordings`. */
export function addVerifyCommands(program: Command): void {
  const verify = program
    .command('verify')
    .description('check the audit log and recordings for tampering');
  const failOn = (intact: boolean) => {
    if (!intact) process.exitCode = 1;
  };

  withStorageFlags(verify.command('audit'))
    .description("check the audit log's hash chain; names the first altered or missing row")
    .action((flags: ConfigFlags) =>
      withAdmin(flags, async (ctx) => failOn(await verifyAudit(ctx, print))),
    );

  withStorageFlags(verify.command('recordings [sid]'))
    .description("check recordings' chunk hashes against their seals; names the first bad chunk")
    .action((sid: string | undefined, flags: ConfigFlags) =>
      withAdmin(flags, async (ctx) => failOn(await verifyRecordings(ctx, sid, print))),
    );
}
