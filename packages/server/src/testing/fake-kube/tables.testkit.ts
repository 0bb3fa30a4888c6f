import { humanDuration, type PodObject } from './kube-objects.testkit.js';

/** Whether the client asked for a metav1 Table (kubectl's human-readable output does). */
export function wantsTable(accept: string | undefined): boolean {
  return /as=Table/.test(accept ?? '');
}

type IncludeObject = 'None' | 'Metadata' | 'Object';

export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

const column = (name: string, priority = 0, format = ''): Column => ({
  name,
  type: 'string',
  format,
  description: `${name} of the object.`,
  priority,
});

// The pod printer's columns (pkg/printers/internalversion): `kubectl get pods` shows priority 0,
// `-o wide` the others too.
const podColumns = [
  column('Name', 0, 'name'),
  column('Ready'),
  column('Status'),
  column('Restarts'),
  column('Age'),
  column('IP', 1),
  column('Node', 1),
  column('Nominated Node', 1),
  column('Readiness Gates', 1),
];
const namespaceColumns = [column('Name', 0, 'name'), column('Status'), column('Age')];

interface TableOptions {
  resourceVersion: number;
  includeObject: IncludeObject;
  /** A watch sends the column definitions with its first event only, as the API server does. */
  noHeaders?: boolean;
}

export function podTable(pods: PodObject[], options: TableOptions) {
  const now = Date.now();
  return table(
    podColumns,
    pods.map((pod) => {
      const statuses = pod.status.containerStatuses;
      const ready = statuses.filter((status) => status.ready).length;
      const restarts = statuses.reduce((sum, status) => sum + status.restartCount, 0);
      return {
        cells: [
          pod.metadata.name,
          `${ready}/${pod.spec.containers.length}`,
          pod.status.phase,
          String(restarts),
          humanDuration(now - Date.parse(pod.metadata.creationTimestamp)),
          pod.status.podIP,
          pod.spec.nodeName,
          '<none>',
          '<none>',
        ],
        object: rowObject(pod, options.includeObject),
      };
    }),
    options,
  );
}

export function namespaceTable(
  namespaces: { metadata: { name: string; creationTimestamp: string } }[],
  options: TableOptions,
) {
  const now = Date.now();
  return table(
    namespaceColumns,
    namespaces.map((namespace) => ({
      cells: [
        namespace.metadata.name,
        'Active',
        humanDuration(now - Date.parse(namespace.metadata.creationTimestamp)),
      ],
      object: rowObject(namespace, options.includeObject),
    })),
    options,
  );
}

function table(
  columns: Column[],
  rows: { cells: string[]; object: unknown }[],
  options: TableOptions,
) {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: String(options.resourceVersion) },
    columnDefinitions: options.noHeaders ? null : columns,
    rows: rows.map((row) => (row.object === undefined ? { cells: row.cells } : row)),
  };
}

function rowObject(object: { metadata: object }, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return object;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}
