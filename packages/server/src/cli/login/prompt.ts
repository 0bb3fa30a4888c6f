import type { Readable, Writable } from 'node:stream';
import { createInterface } from 'node:readline';

/** Where prompts read and write: the terminal, or pipes in tests and scripts. */
export interface PromptIo {
  input: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  output: Writable;
}

/**
 * Reads answers line by line. On a terminal each secret is typed without echo (raw mode, so
 * nothing is shown, not even stars); from a pipe the lines are taken as they come, so tests and
 * scripts can feed the password and the code on stdin.
 */
export class Prompter {
  private lines: AsyncIterator<string> | undefined;

  constructor(private readonly io: PromptIo) {}

  async secret(question: string): Promise<string> {
    this.io.output.write(question);
    const answer =
      this.io.input.isTTY && this.io.input.setRawMode
        ? await this.readRaw()
        : await this.nextLine();
    // Nothing echoed the answer (raw mode, or a pipe), so the next output needs its own line.
    this.io.output.write('\n');
    return answer;
  }

  close(): void {
    void this.lines?.return?.();
  }

  private async nextLine(): Promise<string> {
    this.lines ??= createInterface({ input: this.io.input, terminal: false })[
      Symbol.asyncIterator
    ]();
    const next = await this.lines.next();
    if (next.done) throw new Error('no more input: the prompt needs an answer on stdin');
    return next.value;
  }

  private readRaw(): Promise<string> {
    const input = this.io.input;
    return new Promise((resolve, reject) => {
      let typed = '';
      const done = (error?: Error) => {
        input.setRawMode?.(false);
        input.pause();
        input.off('data', onData);
        if (error) reject(error);
        else resolve(typed);
      };
      const onData = (chunk: Buffer) => {
        for (const char of chunk.toString('utf8')) {
          if (char === '\r' || char === '\n') return done();
          if (char === '\u0003') return done(new Error('interrupted'));
          if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
          else typed += char;
        }
      };
      input.setRawMode?.(true);
      input.resume();
      input.on('data', onData);
    });
  }
}
