import { createHash } from 'node:crypto';
import type { Plugin } from 'vite';
import { storageKeys } from '../src/lib/storageKeys.ts';
import { colorSchemeBootScript } from '../src/theme/applyColorScheme.ts';

/**
 * Applies the stored colour scheme before the first paint. The CSP allows only same-origin
 * script files, so the build emits the boot code as a content-hashed asset (immutable caching is
 * safe) and loads it with a classic, blocking <script> in <head>. The dev server has no CSP and
 * inlines it.
 */
export function themeBootPlugin(): Plugin {
  const source = colorSchemeBootScript(storageKeys.uiTheme);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 10);
  const fileName = `assets/theme-boot-${hash}.js`;
  let base = '/';
  let isBuild = false;

  return {
    name: 'postern-theme-boot',
    configResolved(config) {
      base = config.base;
      isBuild = config.command === 'build';
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName, source });
    },
    transformIndexHtml: {
      order: 'post',
      handler: () => [
        isBuild
          ? { tag: 'script', attrs: { src: `${base}${fileName}` }, injectTo: 'head' }
          : { tag: 'script', children: source, injectTo: 'head' },
      ],
    },
  };
}
