#!/usr/bin/env node
// Bundle size of the console's login route: the JavaScript a browser must download before it
// can show /web/login. Run from the repo root after `npm run build -w @postern/web` (it builds
// first when the manifest is missing). Exits 1 when the login route is over the target.
//
// What counts: the entry chunk, the login page's lazy chunk, and the static imports of both,
// transitively. Dynamic imports (other pages, the private shell) are not loaded by /web/login.
// Baselines are measured in the same run: React + ReactDOM's production builds alone (the floor
// any React console pays) and all JS chunks of the build (what the whole console weighs).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const webDir = path.join(root, 'packages/web');
const distDir = path.join(webDir, 'dist');
const manifestPath = path.join(distDir, '.vite/manifest.json');
const loginPageSource = 'src/features/login/LoginPage.tsx';
const targetKB = 200;

const kb = (bytes) => bytes / 1024;
const fmt = (bytes) => kb(bytes).toFixed(1).padStart(8);
const gzip = (buf) => gzipSync(buf, { level: 9 }).length;

function ensureBuilt() {
  if (existsSync(manifestPath)) return;
  console.log('No build found: running npm run build -w @postern/web');
  const result = spawnSync('npm', ['run', 'build', '-w', '@postern/web'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0 || !existsSync(manifestPath)) {
    console.error('build failed; no manifest at', manifestPath);
    process.exit(2);
  }
}

/** The manifest keys a chunk pulls in before it runs: itself and its static imports. */
function staticClosure(manifest, key, seen = new Set()) {
  if (seen.has(key)) return seen;
  const chunk = manifest[key];
  if (!chunk) throw new Error(`manifest has no chunk ${key}`);
  seen.add(key);
  for (const dep of chunk.imports ?? []) staticClosure(manifest, dep, seen);
  return seen;
}

function measure(file) {
  const buf = readFileSync(file);
  return { raw: buf.length, gz: gzip(buf) };
}

function printTable(title, rows) {
  console.log(`\n${title}`);
  console.log(`${'file'.padEnd(44)} ${'raw KB'.padStart(8)} ${'gzip KB'.padStart(8)}`);
  for (const r of rows) console.log(`${r.name.padEnd(44)} ${fmt(r.raw)} ${fmt(r.gz)}`);
  const total = rows.reduce((t, r) => ({ raw: t.raw + r.raw, gz: t.gz + r.gz }), { raw: 0, gz: 0 });
  console.log(`${'total'.padEnd(44)} ${fmt(total.raw)} ${fmt(total.gz)}`);
  return total;
}

/**
 * React + ReactDOM alone, bundled and minified by the same Vite in this run: the vendor floor any
 * React console pays, so the login route can be read as "floor + ours".
 */
async function reactBaseline() {
  const require = createRequire(path.join(webDir, 'package.json'));
  const { build } = await import(pathToFileURL(require.resolve('vite')).href);
  const id = 'virtual:react-floor';
  const entry = {
    name: 'react-floor',
    resolveId: (source) => (source === id ? `\0${id}` : null),
    load: (resolved) =>
      resolved === `\0${id}`
        ? `import { createElement } from 'react';
           import { createRoot } from 'react-dom/client';
           createRoot(document.getElementById('app')).render(createElement('div'));`
        : null,
  };
  const result = await build({
    root: webDir,
    configFile: false,
    logLevel: 'silent',
    plugins: [entry],
    build: { write: false, target: 'es2022', rollupOptions: { input: id } },
  });
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => r.output);
  return outputs
    .filter((o) => o.type === 'chunk')
    .map((o) => ({
      name: 'react + react-dom (minified)',
      raw: Buffer.byteLength(o.code),
      gz: gzip(o.code),
    }));
}

ensureBuilt();
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
if (!entryKey) throw new Error('manifest has no entry chunk');
if (!manifest[loginPageSource]) throw new Error(`manifest has no chunk for ${loginPageSource}`);

const loginKeys = staticClosure(manifest, loginPageSource, staticClosure(manifest, entryKey));

// The YAML editor (CodeMirror) is the heaviest page code; it must stay a lazy chunk of its own.
const editorSource = 'src/components/yaml/YamlEditor.tsx';
const editorChunk = manifest[editorSource];
if (editorChunk && loginKeys.has(editorSource)) {
  console.error(`${editorSource} (CodeMirror) is loaded by the login route; it must stay lazy`);
  process.exit(1);
}
const loginRows = [...loginKeys]
  .map((k) => manifest[k].file)
  .filter((f) => f.endsWith('.js'))
  .map((f) => ({ name: f, ...measure(path.join(distDir, f)) }))
  .sort((a, b) => b.gz - a.gz);

const login = printTable('Login route (/web/login): JavaScript loaded', loginRows);
const react = printTable('Baseline: React + ReactDOM alone, same bundler', await reactBaseline());
const assetsDir = path.join(distDir, 'assets');
const allJs = readdirSync(assetsDir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => measure(path.join(assetsDir, f)))
  .reduce((t, r) => ({ raw: t.raw + r.raw, gz: t.gz + r.gz }), { raw: 0, gz: 0 });

// CSS is render-blocking too, but outside the JS budget: reported for information.
const loginCss = [...loginKeys]
  .flatMap((k) => manifest[k].css ?? [])
  .map((f) => measure(path.join(distDir, f)))
  .reduce((t, r) => t + r.gz, 0);

const verdict = kb(login.gz) <= targetKB ? 'PASS' : 'OVER';
console.log('\nSummary (gzip -9)');
console.log(`  login route JS          ${fmt(login.gz)} KB`);
console.log(
  `  React + ReactDOM alone  ${fmt(react.gz)} KB  (login route = ${(login.gz / react.gz).toFixed(2)}x)`,
);
console.log(
  `  all JS chunks           ${fmt(allJs.gz)} KB  (login route = ${((100 * login.gz) / allJs.gz).toFixed(0)}%)`,
);
console.log(`  login route CSS (info) ${fmt(loginCss)} KB`);
if (editorChunk) {
  const editor = measure(path.join(distDir, editorChunk.file));
  console.log(
    `  YAML editor, lazy (info)${fmt(editor.gz)} KB  (CodeMirror: Roles, Auth Connectors)`,
  );
}
console.log(`  target                  ${fmt(targetKB * 1024)} KB  ${verdict}`);
process.exit(verdict === 'PASS' ? 0 : 1);
