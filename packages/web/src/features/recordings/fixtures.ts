import type { SessionEndEvent } from '@postern/contracts';

const base = Date.parse('2026-11-20T10:00:00Z');

/**
 * `count` session end events, newest first as the server sends them, cycling through five
 * kinds: an SSH session to play, a Kubernetes one, a recorded desktop, a non-interactive SSH
 * command and an SSH session with recording off. Session n lasted n + 1 minutes.
 */
export function sessionEndFixtures(count: number, startAt = 0): SessionEndEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const n = startAt + i;
    const stop = base - n * 3_600_000;
    const times = {
      time: new Date(stop).toISOString(),
      session_start: new Date(stop - (n + 1) * 60_000).toISOString(),
      session_stop: new Date(stop).toISOString(),
    };
    const ssh = {
      event: 'session.end',
      ...times,
      sid: `sid-${n}`,
      login: 'root',
      participants: ['alice', 'bob'],
    };
    switch (n % 5) {
      case 0:
        return { ...ssh, interactive: true, server_hostname: `web-${n}` };
      case 1:
        return { ...ssh, interactive: true, proto: 'kube', kubernetes_cluster: `kube-${n}` };
      case 2:
        return {
          event: 'windows.desktop.session.end',
          ...times,
          session_id: `sid-${n}`,
          user: 'carol',
          desktop_name: `desk-${n}`,
          recorded: true,
        };
      case 3:
        return { ...ssh, interactive: false, server_hostname: `batch-${n}` };
      default:
        return { ...ssh, interactive: true, session_recording: 'off', server_hostname: `web-${n}` };
    }
  });
}
