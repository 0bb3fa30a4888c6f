import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDesktopFlags } from './desktop-flags.js';

// `postern agent --desktop name=vnc://host:port?password_file=FILE`: what reaches the agent, and
// a one-line reason for each mistake.

let dir: string;
let passwordFile: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-desktop-flags-'));
  passwordFile = path.join(dir, 'vnc-pass');
  await writeFile(passwordFile, 'secret12\nignored second line\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('--desktop', () => {
  it('reads the name, host, port (5900 by default) and the password file’s first line', () => {
    expect(
      parseDesktopFlags([
        `build=vnc://localhost:5901?password_file=${passwordFile}`,
        'lab=vnc://[::1]',
      ]),
    ).toEqual([
      { name: 'build', host: 'localhost', port: 5901, password: 'secret12' },
      { name: 'lab', host: '::1', port: 5900 },
    ]);
  });

  it('says what is wrong with a flag', () => {
    expect(() => parseDesktopFlags(['Build=vnc://h:5901'])).toThrow(/^--desktop: expected name=/);
    expect(() => parseDesktopFlags(['build=rdp://h:3389'])).toThrow(
      '--desktop build: expected vnc://host:port',
    );
    expect(() => parseDesktopFlags(['build=vnc://h?password_file=/nowhere/pass'])).toThrow(
      /--desktop build password_file: cannot read \/nowhere\/pass/,
    );
    expect(() => parseDesktopFlags(['a=vnc://h:1', 'a=vnc://h:2'])).toThrow(
      '--desktop: a is given twice',
    );
  });
});
