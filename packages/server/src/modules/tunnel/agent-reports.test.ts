import { describe, expect, it } from 'vitest';
import { AgentReports } from './agent-reports.js';
import type { AgentHeartbeats } from './control-socket.js';

/** A reader of one field that records what it read. */
function fieldReader(field: string, recorded: unknown[]): AgentHeartbeats<string> {
  return {
    read: (_nodeId, frame) =>
      typeof frame[field] === 'string'
        ? { ok: true, value: frame[field] }
        : { ok: false, why: `${field}: expected a string` },
    record: async (value) => {
      recorded.push(value);
    },
  };
}

describe('agent reports from the wings', () => {
  it('accepts the kinds the wings added, and records each reader’s part of a heartbeat', async () => {
    const nodes: unknown[] = [];
    const apps: unknown[] = [];
    const reports = new AgentReports();
    reports.add('node', fieldReader('hostname', nodes));
    reports.add('app', fieldReader('apps', apps));
    expect([...reports.kinds]).toEqual(['node', 'app']);

    const read = reports.read('n1', { hostname: 'web-1', apps: 'grafana' });
    expect(read.ok).toBe(true);
    if (read.ok) await reports.record(read.value);
    expect(nodes).toEqual(['web-1']);
    expect(apps).toEqual(['grafana']);
  });

  it('refuses a heartbeat any reader refuses, before any part of it is recorded', () => {
    const nodes: unknown[] = [];
    const reports = new AgentReports();
    reports.add('node', fieldReader('hostname', nodes));
    reports.add('app', fieldReader('apps', []));
    expect(reports.read('n1', { hostname: 'web-1', apps: 7 })).toEqual({
      ok: false,
      why: 'apps: expected a string',
    });
    expect(nodes).toEqual([]);
  });
});
