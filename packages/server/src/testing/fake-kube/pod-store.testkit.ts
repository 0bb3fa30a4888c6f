import { ContainerLog } from './pod-logs.testkit.js';
import { MainProcess } from './pod-processes.testkit.js';
import { podObject, type FakePodSpec, type PodObject } from './kube-objects.testkit.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export interface PodEvent {
  type: WatchEventType;
  object: PodObject;
  resourceVersion: number;
}

interface PodEntry {
  object: PodObject;
  spec: FakePodSpec;
  logs: Map<string, ContainerLog>;
  main?: MainProcess;
}

/** How many past events a watch can start from (older resourceVersions answer 410 Gone). */
const historyLength = 1000;

/**
 * The fake's pods: objects with one resourceVersion counter for all of them, the history of
 * events that watches replay from a resourceVersion, each container's log, and the main
 * process of pods that have one.
 */
export class PodStore {
  readonly #pods = new Map<string, PodEntry>();
  readonly #watchers = new Set<(event: PodEvent) => void>();
  #history: PodEvent[] = [];
  #resourceVersion = 1;

  get resourceVersion(): number {
    return this.#resourceVersion;
  }

  add(spec: FakePodSpec): PodObject {
    const namespace = spec.namespace ?? 'default';
    if (this.#pods.has(key(namespace, spec.name))) {
      throw new Error(`pod ${namespace}/${spec.name} exists already`);
    }
    const object = podObject(spec, ++this.#resourceVersion);
    const containers = object.spec.containers.map((container) => container.name);
    const logs = new Map(containers.map((name) => [name, new ContainerLog()]));
    const entry: PodEntry = { object, spec, logs };
    if (spec.main) {
      const log = logs.get(containers[0]!)!;
      entry.main = new MainProcess(spec.main.command, (chunk) => log.append(chunk));
    }
    this.#pods.set(key(namespace, spec.name), entry);
    this.#emit('ADDED', object);
    return structuredClone(object);
  }

  /** Changes a pod (its status, its labels...) and tells watchers: MODIFIED. */
  modify(namespace: string, name: string, change: (pod: PodObject) => void): PodObject {
    const entry = this.#entry(namespace, name);
    change(entry.object);
    entry.object.metadata.resourceVersion = String(++this.#resourceVersion);
    this.#emit('MODIFIED', entry.object);
    return structuredClone(entry.object);
  }

  delete(namespace: string, name: string): void {
    const entry = this.#entry(namespace, name);
    this.#pods.delete(key(namespace, name));
    entry.main?.kill();
    for (const log of entry.logs.values()) log.end();
    entry.object.metadata.resourceVersion = String(++this.#resourceVersion);
    this.#emit('DELETED', entry.object);
  }

  get(namespace: string, name: string): PodObject | undefined {
    const entry = this.#pods.get(key(namespace, name));
    return entry && structuredClone(entry.object);
  }

  list(namespace?: string): PodObject[] {
    return (
      [...this.#pods.values()]
        .map((entry) => entry.object)
        .filter((pod) => namespace === undefined || pod.metadata.namespace === namespace)
        // The API server lists in storage key order: namespace, then name.
        .sort((a, b) => podKey(a).localeCompare(podKey(b)))
        .map((pod) => structuredClone(pod))
    );
  }

  appendLog(namespace: string, name: string, text: string, container?: string): void {
    const entry = this.#entry(namespace, name);
    const log = entry.logs.get(container ?? entry.object.spec.containers[0]!.name);
    if (!log) throw new Error(`pod ${namespace}/${name} has no container ${container}`);
    log.append(text);
  }

  log(namespace: string, name: string, container: string): ContainerLog | undefined {
    return this.#pods.get(key(namespace, name))?.logs.get(container);
  }

  mainProcess(namespace: string, name: string): MainProcess | undefined {
    return this.#pods.get(key(namespace, name))?.main;
  }

  /** The loopback port a container port forwards to. */
  forwardTarget(namespace: string, name: string, port: number): number | undefined {
    return this.#pods.get(key(namespace, name))?.spec.ports?.[port];
  }

  /**
   * Starts a watch: the events after `fromVersion` (undefined when that is older than the
   * history keeps), then every new one through `listener` until `stop`.
   */
  watch(fromVersion: number, listener: (event: PodEvent) => void) {
    const oldest = this.#history[0]?.resourceVersion ?? this.#resourceVersion + 1;
    const tooOld = fromVersion < oldest - 1 && this.#history.length === historyLength;
    const replay = tooOld
      ? undefined
      : this.#history.filter((e) => e.resourceVersion > fromVersion);
    if (replay) this.#watchers.add(listener);
    return { replay, stop: () => this.#watchers.delete(listener) };
  }

  close(): void {
    for (const entry of this.#pods.values()) {
      entry.main?.kill();
      for (const log of entry.logs.values()) log.end();
    }
    this.#watchers.clear();
  }

  #entry(namespace: string, name: string): PodEntry {
    const entry = this.#pods.get(key(namespace, name));
    if (!entry) throw new Error(`no pod ${namespace}/${name}`);
    return entry;
  }

  #emit(type: WatchEventType, object: PodObject): void {
    const event = { type, object: structuredClone(object), resourceVersion: this.#resourceVersion };
    this.#history.push(event);
    if (this.#history.length > historyLength) this.#history.shift();
    for (const watcher of this.#watchers) watcher(event);
  }
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;
const podKey = (pod: PodObject) => key(pod.metadata.namespace, pod.metadata.name);
