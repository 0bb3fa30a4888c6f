import { parentPort, workerData } from 'node:worker_threads';
import { SqliteAuditStore } from './audit.sqlite.js';
import type { WriterData, WriterReply, WriterRequest } from './audit-writer.protocol.js';

/**
 * The writer thread of threaded-sqlite-audit-store.ts: its own connection to the audit file,
 * taking rows already completed on the main thread and chaining, inserting and indexing them,
 * one request at a time, in the order they came.
 */
const { path, clusterName, options } = workerData as WriterData;
const store = new SqliteAuditStore(path, clusterName, options);
const port = parentPort!;

port.on('message', (request: WriterRequest) => {
  void handle(request).then((reply) => port.postMessage(reply));
});

async function handle(request: WriterRequest): Promise<WriterReply> {
  try {
    switch (request.op) {
      case 'append':
        store.appendRows(request.rows);
        return { id: request.id, ok: true };
      case 'remove': {
        const removed = await store.removeOlderThan(new Date(request.cutoffMs), request.batchSize);
        return { id: request.id, ok: true, removed };
      }
      case 'close':
        await store.close();
        return { id: request.id, ok: true };
    }
  } catch (error) {
    const { name, message, code } = error as Error & { code?: unknown };
    return {
      id: request.id,
      ok: false,
      error: { name, message, ...(typeof code === 'string' ? { code } : {}) },
    };
  }
}
