// The one summary line of `npm test` (`N passed, N failed[, N skipped]`, which CI reads), from the
// stages that ran and the JSON reports of the test runners.

/**
 * @param {{
 *   stages: { name: string; status: number }[];
 *   vitest: { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number } | null;
 *   e2e: { stats: { expected: number; flaky: number; unexpected: number; skipped: number } } | null;
 * }} results
 * @returns {{ line: string; problems: string[]; ok: boolean }}
 */
export function summarize({ stages, vitest, e2e }) {
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
  /** @type {string[]} */
  const problems = [];
  // A stage with no test report of its own (lint, the type check, the build) or one that died
  // without reporting (a crash) counts as one failure, so the line never hides it.
  for (const { name, status } of stages) {
    const reported = (name === 'vitest' && vitest) || (name === 'playwright' && e2e);
    if (status !== 0 && !reported) {
      problems.push(`stage '${name}' failed with exit code ${status}`);
      failed += 1;
    } else if (status !== 0 && reportedNoFailure(name, vitest, e2e)) {
      // Vitest fails a run whose tests all passed when errors escaped them (an unhandled
      // rejection) or a hook failed: that counts too, and the runner's output says where.
      problems.push(
        `stage '${name}' failed with exit code ${status} though no test failed: see its errors above`,
      );
      failed += 1;
    }
  }
  // The names of the failed tests come last but one, so that a CI log cut to its tail still
  // says which test failed and why.
  problems.push(...failedVitestTests(vitest), ...failedE2eTests(e2e));
  const failedStages = stages.filter(({ status }) => status !== 0).map(({ name }) => name);
  if (failedStages.length) problems.push(`failed stages: ${failedStages.join(', ')}`);
  return {
    line: `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`,
    problems,
    ok: failed === 0 && failedStages.length === 0,
  };
}

/** Whether the runner of a failed stage reported every test as passed. */
function reportedNoFailure(name, vitest, e2e) {
  if (name === 'vitest') return vitest?.numFailedTests === 0;
  if (name === 'playwright') return e2e?.stats.unexpected === 0;
  return false;
}

const firstLine = (text) =>
  String(text ?? '')
    .split('\n')
    .find((line) => line.trim()) ?? '';

/** `failed: file › test: first line of its error` for each failed vitest test. */
function failedVitestTests(vitest) {
  const lines = [];
  for (const file of vitest?.testResults ?? []) {
    const failed = (file.assertionResults ?? []).filter(({ status }) => status === 'failed');
    for (const test of failed) {
      lines.push(
        `failed: ${file.name} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`,
      );
    }
    // A file that failed before any test ran (an import error, a hook) has no failed test.
    if (!failed.length && file.status === 'failed') {
      lines.push(`failed: ${file.name}: ${firstLine(file.message)}`);
    }
  }
  return lines;
}

/** `failed: file:line › title: first line of its error` for each unexpected Playwright test. */
function failedE2eTests(e2e) {
  const lines = [];
  const visit = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'unexpected') continue;
        const error = test.results?.at(-1)?.error?.message;
        lines.push(`failed: ${spec.file}:${spec.line} › ${spec.title}: ${firstLine(error)}`);
      }
    }
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of e2e?.suites ?? []) visit(suite);
  return lines;
}
