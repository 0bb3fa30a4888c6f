import { filesThatMeasureMemory, serverTests } from './vitest.shared.ts';

// Files in a worker share its modules instead of importing the server afresh each: the project
// ran in 266 s instead of 470 s on the 2-core CI machine (import was 300 s of the workers' time).
// So a test leaves nothing process-wide behind: state a module keeps is reset by what set it
// (padding-pool's unpoolPacketPadding, the CLI kinds table built whole), and the setup file
// undoes spies, fake timers and process.exitCode after each file.
export default serverTests('server', {
  include: ['src/**/*.test.ts'],
  exclude: filesThatMeasureMemory,
  isolate: false,
});
