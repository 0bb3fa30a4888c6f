import { withoutBase } from './base-path.js';

/**
 * Fits one Set-Cookie of the app to the host the browser sees it on: a `Domain=` names the app's
 * internal domain (or a parent of the public one, which would spread the cookie to every app), so
 * it is dropped and the cookie binds to the app's own host; a `Path=` under the upstream base path
 * moves up by that base, like the app's URLs. Every other byte stays as the app wrote it.
 */
export function rewriteSetCookie(header: string, basePath: string): string {
  const [pair = '', ...attributes] = header.split(';');
  const kept: string[] = [];
  for (const attribute of attributes) {
    const equals = attribute.indexOf('=');
    const name = (equals === -1 ? attribute : attribute.slice(0, equals)).trim().toLowerCase();
    if (name === 'domain') continue;
    if (name === 'path' && equals !== -1) {
      const path = attribute.slice(equals + 1).trim();
      const moved = withoutBase(path, basePath);
      if (moved !== path) {
        kept.push(` Path=${moved}`);
        continue;
      }
    }
    kept.push(attribute);
  }
  return [pair, ...kept].join(';');
}
