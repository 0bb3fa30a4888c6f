// `npm test`: installs missing test dependencies, builds, runs every unit and integration test
// (vitest), then the end-to-end tests (Playwright, real server, real Chromium), and ends with one
// summary line `N passed, N failed[, N skipped]` that CI reads.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

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
stage('vitest', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${outputDir}/vitest.json`,
]);
if (built) stage('playwright', 'npx', ['playwright', 'test']);

const vitest = readJson(`${outputDir}/vitest.json`);
const e2e = readJson(`${outputDir}/e2e.json`);
let passed = 0;
let failed = 0;
let skipped = 0;
if (vitest) {
  passed += vitest.numPassedTests;
  failed += vitest.numFailedTests;
  skipped += vitest.numPendingTests + vitest.numTodoTests;
}
if (e2e) {
  passed += e2e.stats.expected + e2e.stats.flaky;
  failed += e2e.stats.unexpected;
  skipped += e2e.stats.skipped;
}
// A stage that died without reporting (a crash, a build error) counts as a failure.
for (const { name, status } of stages) {
  const reported = (name === 'vitest' && vitest) || (name === 'playwright' && e2e);
  if (status !== 0 && !reported) {
    console.error(`stage '${name}' failed with exit code ${status}`);
    failed += 1;
  }
}
const failedStages = stages.filter(({ status }) => status !== 0).map(({ name }) => name);
if (failedStages.length) console.error(`failed stages: ${failedStages.join(', ')}`);

console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || failedStages.length ? 1 : 0);
