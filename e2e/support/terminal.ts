import { expect, type Page } from '@playwright/test';

/** The console's terminal: the region xterm is mounted in. */
export const terminal = (page: Page) => page.getByRole('region', { name: 'Terminal', exact: true });

/**
 * What the terminal shows, one line per row. Headless Chromium has no GPU, so the console uses
 * xterm's DOM renderer, whose rows are plain elements; it draws spaces as no-break spaces.
 */
export async function screenText(page: Page): Promise<string> {
  const rows = await terminal(page).locator('.xterm-rows > div').allTextContents();
  return rows.map((row) => row.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}

/** What the session player's screen shows now, row by row. */
export async function playerScreen(page: Page): Promise<string> {
  const rows = await page.locator('.xterm-rows > div').allTextContents();
  return rows.map((row) => row.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}

/** Waits until the terminal shows the text. */
export async function expectOnScreen(page: Page, text: string, timeout?: number) {
  await expect.poll(() => screenText(page), { timeout }).toContain(text);
}

/** Waits until the socket is up: typing before that would race the connection. */
export async function expectConnected(page: Page) {
  await expect(terminal(page)).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Connecting…' })).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'disconnected:' })).toHaveCount(0);
}

/**
 * Waits for the shell's first output (its prompt). A login shell on a loaded machine can take
 * seconds to start, and what is typed before it prints anything may be echoed by the tty and then
 * thrown away by the shell's start-up (seen in CI: the command on screen, no prompt, no output).
 * Any text will do: a screen scrolled back, or an observer's copy, need not end in a prompt.
 */
export async function expectShellStarted(page: Page) {
  await expect
    .poll(async () => (await screenText(page)).trim().length > 0, {
      message: 'the shell printed something',
    })
    .toBe(true);
}

/** Types a command at the shell's prompt as a person would, and presses Enter. */
export async function runInTerminal(page: Page, command: string) {
  await expectConnected(page);
  await expectShellStarted(page);
  await terminal(page).click();
  await page.keyboard.type(command);
  await page.keyboard.press('Enter');
}

let reporters = 0;

/**
 * Watches the terminal for `text` from now on. An observer inside the page reports it the moment
 * xterm draws it, so the news arrives even when the page navigates away right after: a lock also
 * signs the user out, and the console then leaves for the login page at its next token check,
 * which polling from the test could miss. Start it before the action that should print the text.
 */
export async function watchScreenFor(page: Page, text: string) {
  const report = `reportScreen${reporters++}`;
  let shown!: (screen: string) => void;
  const seen = new Promise<string>((resolve) => (shown = resolve));
  await page.exposeFunction(report, (screen: string) => shown(screen));
  await terminal(page).evaluate(
    (region, [wanted, reportName]) => {
      const read = () =>
        Array.from(region.querySelectorAll('.xterm-rows > div'), (row) =>
          (row.textContent ?? '').replace(/\u00a0/g, ' '),
        ).join('\n');
      const observer = new MutationObserver(() => {
        const screen = read();
        if (!screen.includes(wanted)) return;
        observer.disconnect();
        (window as unknown as Record<string, (s: string) => void>)[reportName]!(screen);
      });
      observer.observe(region, { subtree: true, childList: true, characterData: true });
    },
    [text, report] as const,
  );
  return {
    /** The screen that showed the text; rejects if it does not within `ms` from this call. */
    within(ms: number): Promise<string> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`"${text}" not on screen in ${ms} ms`)), ms);
      });
      return Promise.race([seen, late]).finally(() => clearTimeout(timer));
    },
  };
}
