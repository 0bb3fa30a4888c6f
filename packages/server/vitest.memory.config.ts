import { filesThatMeasureMemory, serverTests } from './vitest.shared.ts';

// The server's tests that bound the process's memory, each in a process of its own.
export default serverTests('server-memory', { include: filesThatMeasureMemory, isolate: true });
