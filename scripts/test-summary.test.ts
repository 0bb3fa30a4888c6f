import { describe, expect, it } from 'vitest';
import { summarize } from './test-summary.mjs';

const vitest = { numPassedTests: 40, numFailedTests: 0, numPendingTests: 1, numTodoTests: 1 };
const e2e = { stats: { expected: 9, flaky: 1, unexpected: 0, skipped: 0 } };
const ran = (failing: Record<string, number> = {}) =>
  ['build', 'lint', 'typecheck', 'vitest', 'playwright'].map((name) => ({
    name,
    status: failing[name] ?? 0,
  }));

describe('the npm test summary line', () => {
  it('adds up both runners when every stage passes', () => {
    expect(summarize({ stages: ran(), vitest, e2e })).toEqual({
      line: '50 passed, 0 failed, 2 skipped',
      problems: [],
      ok: true,
    });
  });

  it('counts a failed lint or type check as a failure and fails the run', () => {
    const summary = summarize({ stages: ran({ lint: 1, typecheck: 2 }), vitest, e2e });
    expect(summary.line).toBe('50 passed, 2 failed, 2 skipped');
    expect(summary.problems).toEqual([
      "stage 'lint' failed with exit code 1",
      "stage 'typecheck' failed with exit code 2",
      'failed stages: lint, typecheck',
    ]);
    expect(summary.ok).toBe(false);
  });

  it('counts the failed tests of a runner that reported, and a runner that died as one', () => {
    const failing = { ...vitest, numFailedTests: 3 };
    const summary = summarize({
      stages: ran({ vitest: 1, playwright: 1 }),
      vitest: failing,
      e2e: null,
    });
    expect(summary.line).toBe('40 passed, 4 failed, 2 skipped');
    expect(summary.ok).toBe(false);
  });

  it('counts a runner that failed with every test passed (unhandled errors) as one failure', () => {
    const summary = summarize({ stages: ran({ vitest: 1 }), vitest, e2e });
    expect(summary.line).toBe('50 passed, 1 failed, 2 skipped');
    expect(summary.problems[0]).toBe(
      "stage 'vitest' failed with exit code 1 though no test failed: see its errors above",
    );
    expect(summary.ok).toBe(false);
  });

  it('names each failed test with its first error line, so a log cut to its tail says which', () => {
    const report = {
      ...vitest,
      numFailedTests: 1,
      testResults: [
        {
          name: '/ci/a.test.ts',
          status: 'failed',
          assertionResults: [
            { fullName: 'a works', status: 'passed', failureMessages: [] },
            {
              fullName: 'a fails',
              status: 'failed',
              failureMessages: ['\nAssertionError: 1 != 2\n at x'],
            },
          ],
        },
        {
          name: '/ci/b.test.ts',
          status: 'failed',
          message: 'Cannot find module x',
          assertionResults: [],
        },
      ],
    };
    const spec = (status: string) => ({
      file: 'e2e/c.spec.ts',
      line: 7,
      title: 'c ' + status,
      tests: [{ status, results: [{ error: { message: 'Timeout 5000ms exceeded.\nCall log' } }] }],
    });
    const failingE2e = {
      stats: { expected: 1, flaky: 0, unexpected: 1, skipped: 0 },
      suites: [{ specs: [], suites: [{ specs: [spec('expected'), spec('unexpected')] }] }],
    };
    const summary = summarize({
      stages: ran({ vitest: 1, playwright: 1 }),
      vitest: report,
      e2e: failingE2e,
    });
    expect(summary.problems).toEqual([
      'failed: /ci/a.test.ts › a fails: AssertionError: 1 != 2',
      'failed: /ci/b.test.ts: Cannot find module x',
      'failed: e2e/c.spec.ts:7 › c unexpected: Timeout 5000ms exceeded.',
      'failed stages: vitest, playwright',
    ]);
  });
});
