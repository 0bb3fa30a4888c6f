// `npm test`: installs missing test dependencies, builds, checks the code (eslint with the layer
// rules, prettier, the type check of every package and its tests), runs every unit and
// integration test (vitest), then the end-to-end tests (Playwright, real server, real Chromium),
// and ends with one summary line `N passed, N failed[, N skipped]` that CI reads.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { summarize } from './test-summary.mjs';

const outputDir = '.test-output';
rmSync(outputDir, { recursive: true, force: true });
mkdirSync(outputDir, { recursive: true });

const run = (command, args) => spawnSync(command, args, { stdio: 'inherit' }).status ?? 1;
const readJson = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null);

const stages = [];
const stage = (name, command, args) => {
  const status = run(command, args);
  stages.push({ name, status });
  return status;
};

stage('test dependencies', 'bash', ['scripts/ensure-test-deps.sh']);
const built = stage('build', 'npm', ['run', 'build', '--silent']) === 0;
// The checks fail the run but do not stop it: the tests' results are worth having too.
stage('lint', 'npm', ['run', 'lint', '--silent']);
stage('typecheck', 'npm', ['run', 'typecheck', '--silent']);
stage('vitest', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${outputDir}/vitest.json`,
]);
if (built) stage('playwright', 'npx', ['playwright', 'test']);

const summary = summarize({
  stages,
  vitest: readJson(`${outputDir}/vitest.json`),
  e2e: readJson(`${outputDir}/e2e.json`),
});
for (const problem of summary.problems) console.error(problem);
console.log(summary.line);
process.exit(summary.ok ? 0 : 1);
