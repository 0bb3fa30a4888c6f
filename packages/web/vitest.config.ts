import { consoleTests, filesThatMock } from './vitest.shared.ts';

// The console's tests but those that mock a module: they share their worker's modules, so a
// test leaves nothing behind in a module (src/test/setup.ts cleans the DOM and storage).
export default consoleTests('web', {
  include: ['src/**/*.test.{ts,tsx}'],
  exclude: filesThatMock,
  isolate: false,
});
