/**
 * Sets the stored colour scheme on <html> before the first paint. Self-contained on purpose: the
 * build serialises it (`Function.prototype.toString`) into a tiny blocking script in <head>,
 * because the CSP forbids inline scripts and module scripts run only after the page has painted.
 */
export function applyStoredColorScheme(
  storageKey: string,
  doc: Document = document,
  storage: Storage = window.localStorage,
): 'light' | 'dark' {
  let scheme: 'light' | 'dark' = 'light';
  try {
    if (storage.getItem(storageKey) === 'dark') scheme = 'dark';
  } catch {
    // Storage can be blocked (privacy settings); the default theme is fine then.
  }
  doc.documentElement.setAttribute('data-mantine-color-scheme', scheme);
  doc.documentElement.style.colorScheme = scheme;
  return scheme;
}

/** The source of the blocking boot script, for the build (see vite.config.ts). */
export function colorSchemeBootScript(storageKey: string): string {
  return `(${applyStoredColorScheme.toString()})(${JSON.stringify(storageKey)});\n`;
}
