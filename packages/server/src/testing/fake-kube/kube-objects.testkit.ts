import { randomUUID } from 'node:crypto';

/** What a test says about a pod; the fake fills in the rest of a v1.Pod. */
export interface FakePodSpec {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  /** Default: one container, `main`. */
  containers?: { name: string; image?: string }[];
  /** Default Running. */
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  /** Container port → the loopback port that port-forward reaches for it. */
  ports?: Record<number, number>;
  /** A long-running process in the first container, started under a pty when the pod is added: what attach attaches to. */
  main?: { command: string[] };
  /** Default: now. */
  createdAt?: Date;
}

/** A v1.Pod as JSON, with the fields kubectl reads. */
export interface PodObject {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    creationTimestamp: string;
    labels?: Record<string, string>;
  };
  spec: {
    nodeName: string;
    containers: {
      name: string;
      image: string;
      stdin?: boolean;
      tty?: boolean;
      ports?: { containerPort: number; protocol: 'TCP' }[];
    }[];
  };
  status: {
    phase: string;
    podIP: string;
    hostIP: string;
    startTime: string;
    conditions: { type: string; status: 'True' | 'False' }[];
    containerStatuses: {
      name: string;
      image: string;
      imageID: string;
      containerID: string;
      ready: boolean;
      started: boolean;
      restartCount: number;
      state: { running?: { startedAt: string }; waiting?: { reason?: string } };
    }[];
  };
}

export function podObject(spec: FakePodSpec, resourceVersion: number): PodObject {
  const created = (spec.createdAt ?? new Date()).toISOString().replace(/\.\d+Z$/, 'Z');
  const phase = spec.phase ?? 'Running';
  const running = phase === 'Running';
  const containers = spec.containers ?? [{ name: 'main' }];
  const ports = Object.keys(spec.ports ?? {}).map((port) => ({
    containerPort: Number(port),
    protocol: 'TCP' as const,
  }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: spec.name,
      namespace: spec.namespace ?? 'default',
      uid: randomUUID(),
      resourceVersion: String(resourceVersion),
      creationTimestamp: created,
      ...(spec.labels ? { labels: spec.labels } : {}),
    },
    spec: {
      nodeName: 'fake-node',
      containers: containers.map((container, index) => ({
        name: container.name,
        image: container.image ?? 'busybox:latest',
        // The main process runs under a pty: kubectl attach -it checks these two.
        ...(index === 0 && spec.main ? { stdin: true, tty: true } : {}),
        ...(index === 0 && ports.length > 0 ? { ports } : {}),
      })),
    },
    status: {
      phase,
      podIP: '10.0.0.10',
      hostIP: '127.0.0.1',
      startTime: created,
      conditions: [{ type: 'Ready', status: running ? 'True' : 'False' }],
      containerStatuses: containers.map((container) => ({
        name: container.name,
        image: container.image ?? 'busybox:latest',
        imageID: 'fake://busybox',
        containerID: `fake://${spec.name}-${container.name}`,
        ready: running,
        started: running,
        restartCount: 0,
        state: running ? { running: { startedAt: created } } : { waiting: { reason: phase } },
      })),
    },
  };
}

export function namespaceObject(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, uid: `ns-${name}`, resourceVersion: '1', creationTimestamp: epoch },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

const epoch = '2024-01-01T00:00:00Z';

/** A list (PodList, NamespaceList) as the API server writes it. */
export function listObject(kind: string, items: unknown[], resourceVersion: number) {
  return { apiVersion: 'v1', kind, metadata: { resourceVersion: String(resourceVersion) }, items };
}

/** metav1.Status for an error answer. */
export function errorStatus(code: number, reason: string, message: string, details?: object) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

/** k8s.io/apimachinery's duration.HumanDuration: how AGE columns read. */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}
