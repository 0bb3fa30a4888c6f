import { statfs as nodeStatfs } from 'node:fs/promises';
import path from 'node:path';

/** What `statfs(2)` says about a filesystem, in the fields we read (Node's StatsFs has them). */
export interface FsBlocks {
  bsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
}

/** Reads a filesystem's blocks; `node:fs/promises` statfs unless a test injects another. */
export type StatfsReader = (dir: string) => Promise<FsBlocks>;

export const systemStatfs: StatfsReader = (dir) => nodeStatfs(dir);

export interface DiskUsage {
  /** The directory asked about (the filesystem holding it was measured). */
  path: string;
  totalBytes: number;
  /** What an unprivileged writer (Postern) can still use. */
  availableBytes: number;
  /** As `df` counts it: used / (used + available), so root's reserve counts as full. */
  usedPercent: number;
}

/**
 * The usage of the filesystem holding `dir`. A directory not created yet (no recording so far)
 * is measured at its nearest existing parent, which is where it will be created.
 */
export async function readDiskUsage(dir: string, statfs: StatfsReader): Promise<DiskUsage> {
  let target = path.resolve(dir);
  for (;;) {
    try {
      const blocks = await statfs(target);
      return usageOf(dir, blocks);
    } catch (error) {
      const parent = path.dirname(target);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === target) throw error;
      target = parent;
    }
  }
}

function usageOf(dir: string, { bsize, blocks, bfree, bavail }: FsBlocks): DiskUsage {
  const used = (blocks - bfree) * bsize;
  const available = bavail * bsize;
  const usable = used + available;
  return {
    path: dir,
    totalBytes: blocks * bsize,
    availableBytes: available,
    usedPercent: usable > 0 ? (used / usable) * 100 : 0,
  };
}
