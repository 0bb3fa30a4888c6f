import { storageKeys } from '../lib/storageKeys';

/**
 * Optional telemetry (spec §2): the module is downloaded only when the local setting
 * `enable-telemetry` is exactly 'true'. Everything it needs comes in as arguments, so tests can
 * check that nothing loads otherwise.
 */
export interface PageviewSource {
  currentPath: () => string;
  onPathChange: (listener: (path: string) => void) => unknown;
}

export interface TelemetryModule {
  startPageviews(source: PageviewSource): void;
}

export interface TelemetryDeps extends PageviewSource {
  storage: Pick<Storage, 'getItem'>;
  load?: () => Promise<TelemetryModule>;
}

export function isTelemetryEnabled(storage: Pick<Storage, 'getItem'>): boolean {
  try {
    return storage.getItem(storageKeys.enableTelemetry) === 'true';
  } catch {
    return false;
  }
}

/** Resolves to whether telemetry started. Never throws: telemetry must not break the console. */
export async function startTelemetryIfEnabled({
  storage,
  load = () => import('./pageviews'),
  ...source
}: TelemetryDeps): Promise<boolean> {
  if (!isTelemetryEnabled(storage)) return false;
  try {
    (await load()).startPageviews(source);
    return true;
  } catch {
    return false;
  }
}
