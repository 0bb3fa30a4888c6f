/**
 * `scp …` (also by path, `/usr/bin/scp -t …`): the legacy scp protocol over exec, which
 * `ssh_file_copy: false` refuses with the sftp subsystem (the SSH proxy and the node service).
 */
export const isScpCommand = (command: string) =>
  /^(?:\S*\/)?scp$/.test(command.trim().split(/\s+/)[0] ?? '');
