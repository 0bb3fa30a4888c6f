import { consoleTests, filesThatMock } from './vitest.shared.ts';

// The console's tests that mock a module, each file with modules of its own (vitest.shared.ts).
export default consoleTests('web-mocks', { include: filesThatMock, isolate: true });
