// Figure (f): terminal output rendered by the real console in Debian's Chromium, and, as the
// baseline, the same number of bytes written straight into another xterm.js (the same build, the
// same DOM renderer, the same font) in the same page, with no network and no proxy; and the same
// cat in wetty's page (another web terminal, over ssh to the same sshd) in the same browser.
// The browser is driven through bare CDP (./cdp.mjs), not Playwright: see there for why.
// Functions passed to page.evaluate run in the page, with its globals:
/* global window, document, location, HTMLCanvasElement, MutationObserver, getComputedStyle */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { launchChromium } from './cdp.mjs';
import { cpuSnapshot, cpuSpent } from './cpu-account.mjs';
import { repoRoot } from './postern.mjs';

const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** What is echoed after the output of a round; unique per round, so no earlier one matches. */
const marker = (round) => `BENCH-R${round}-DONE`;

/**
 * Watches the rows xterm renders into (`root` holds one `.xterm-rows`) and records when `marker`
 * first shows on screen in `window[key]`; records Enter's keydown in `window.__benchStart`.
 * With `term` (the name of a global Terminal), for a WebGL renderer, which puts no rows in the
 * DOM: checks the text of the rows each render drew instead.
 */
function installWatch({ key, marker, rootSelector, term }) {
  window[key] = undefined;
  if (term) {
    const terminal = window[term];
    const buffer = terminal.buffer.active;
    const rendered = terminal.onRender(({ start, end }) => {
      for (let y = start; y <= end; y++) {
        const text = buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '';
        if (!text.includes(marker)) continue;
        window[key] = performance.now();
        rendered.dispose();
        return;
      }
    });
  } else {
    const rows = document.querySelector(`${rootSelector} .xterm-rows`);
    if (!rows) throw new Error(`no xterm rows under ${rootSelector}`);
    const observer = new MutationObserver(() => {
      if (rows.textContent.includes(marker)) {
        window[key] = performance.now();
        observer.disconnect();
      }
    });
    observer.observe(rows, { childList: true, subtree: true, characterData: true });
  }
  window.__benchStart = undefined;
  const onKey = (event) => {
    if (event.key !== 'Enter') return;
    window.__benchStart = performance.now();
    document.removeEventListener('keydown', onKey, true);
  };
  document.addEventListener('keydown', onKey, true);
}

/** The screen's text: the DOM renderer's rows, or (WebGL: no rows) wetty's terminal's buffer. */
const screenText = (page) =>
  page.evaluate(() => {
    const rows = document.querySelector('.xterm-rows');
    if (rows) return rows.innerText;
    const terminal = window.wetty_term;
    if (!terminal) return '';
    const buffer = terminal.buffer.active;
    const line = (y) => buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '';
    return Array.from({ length: terminal.rows }, (_, y) => line(y)).join('\n');
  });

async function waitForScreen(page, pattern, what, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const text = await screenText(page);
    const match = pattern.exec(text);
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Focuses the terminal's input (xterm's hidden textarea) in `page`, as a click on it would. */
const focusTerminal = (page) =>
  page.evaluate(() => document.querySelector('.xterm-helper-textarea').focus());

/** Profiles the page's main thread around `run` when `file` is set (Chrome DevTools format). */
async function profiled(page, file, run) {
  if (!file) return run();
  const [value, profile] = await page.profiled(run);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(profile));
  return value;
}

/** The size of the terminal focused in `page`, as its shell's `stty size` tells. */
async function terminalSize(page, what) {
  await page.type("stty size; echo SIZE-''OK");
  await page.pressEnter();
  const [, rows, cols] = await waitForScreen(
    page,
    /^(\d+) (\d+)\s*\n\s*SIZE-OK/m,
    `${what}'s size`,
  );
  return { cols: Number(cols), rows: Number(rows) };
}

/**
 * In the terminal focused in `page`, at a prompt: clears the screen, types the cat of `file` and
 * an echo of the round's marker, split so only its output shows it whole, and returns the ms from
 * pressing Enter until the marker is on screen. `term` as for installWatch.
 */
async function timeCat(page, { file, round, profile, term }) {
  await page.bringToFront();
  await page.type('clear');
  await page.pressEnter();
  await page.evaluate(installWatch, {
    key: '__benchDone',
    marker: marker(round),
    rootSelector: '.xterm',
    term,
  });
  await page.type(`cat '${file}'; echo BENCH-R${round}-''DONE`);
  const cpuBefore = cpuSnapshot();
  await profiled(page, profile, async () => {
    await page.pressEnter();
    await page.waitForFunction(() => window.__benchDone !== undefined, null, {
      timeout: 300_000,
      polling: 100,
    });
  });
  const ms = await page.evaluate(() => window.__benchDone - window.__benchStart);
  return { ms, cpu: cpuSpent(cpuBefore, cpuSnapshot(), ms / 1000) };
}

/** Runs `run` (resolving with ms) and adds the CPU each part of the machine used meanwhile. */
async function withCpu(run) {
  const before = cpuSnapshot();
  const ms = await run();
  return { ms, cpu: cpuSpent(before, cpuSnapshot(), ms / 1000) };
}

/**
 * Opens wetty's page in a tab of `context` (the same viewport), with the console's font and, once
 * its shell is up, the console's terminal size (wetty fits its terminal to the window unless told
 * not to). With `webgl` false, WebGL is hidden from the page, so wetty keeps xterm's DOM renderer,
 * the one the console picks in this browser (its WebGL addon throws once, uncaught, on opening
 * the terminal, and xterm goes on with the DOM renderer); as shipped, wetty loads xterm's WebGL
 * addon whenever the browser has WebGL2, here SwiftShader's software GL.
 */
async function openWetty(browser, url, { cols, rows, font, webgl }) {
  const initScript = {
    fn: ({ font, webgl }) => {
      const options = { xterm: font, wettyFitTerminal: false };
      localStorage.options = JSON.stringify(options);
      if (webgl) return;
      const getContext = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
        return /webgl/.test(kind) ? null : getContext.call(this, kind, ...rest);
      };
    },
    arg: { font, webgl },
  };
  const page = await browser.newPage({ initScript });
  await page.goto(url);
  await page.waitForFunction(() => window.wetty_term !== undefined, null, { timeout: 30_000 });
  await waitForScreen(page, /[#$] \s*$/m, "wetty's first prompt");
  const renderer = await page.evaluate(
    ({ cols, rows }) => {
      window.wetty_term.resize(cols, rows);
      return document.querySelector('.xterm-rows') ? 'DOM' : 'WebGL';
    },
    { cols, rows },
  );
  await focusTerminal(page);
  const size = await terminalSize(page, 'wetty');
  return { page, renderer, size: `${size.cols}x${size.rows}`, ms: [] };
}

/**
 * Opens the console's terminal on `nodeId` as root, cats `file` (`bytes` of terminal output once
 * the PTY turned its newlines into CRLF) and times it until the marker after it is on screen;
 * then the direct-xterm baseline, the bare socket and, with `wettyUrl`, the same cat in wetty's
 * page with xterm's DOM renderer (and, with `wettyWebgl`, as shipped); `rounds` times, taking
 * turns.
 */
export async function renderedOutput(
  env,
  { file, bytes, rounds = 2, profileDir, wettyUrl, wettyWebgl = false, log = () => {} },
) {
  const browser = await launchChromium({
    executable: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: chromiumArgs,
  });
  try {
    await browser.setCookies([
      {
        name: '__Host-session',
        value: env.session.id,
        // Chromium refuses a Secure cookie set by an http:// url; by domain and path it takes
        // it, and sends it to http://localhost, a secure context.
        domain: new URL(env.postern.url).hostname,
        path: '/',
        httpOnly: true,
        secure: true,
        sameSite: 'Strict',
      },
    ]);
    const page = await browser.newPage();
    const { url, clusterName } = env.postern;
    await page.goto(`${url}/web/cluster/${clusterName}/console/node/${env.nodeId}/root`);
    await page.waitForFunction(() => document.querySelector('.xterm-rows') !== null);
    await waitForScreen(page, /[#$] \s*$/m, 'the first prompt in the console');
    await focusTerminal(page);

    // The terminal's size and font, to give the other terminals the same.
    const { cols, rows } = await terminalSize(page, 'the console');
    const font = await page.evaluate(() => {
      const style = getComputedStyle(document.querySelector('.xterm-rows'));
      return { fontSize: parseFloat(style.fontSize), fontFamily: style.fontFamily };
    });
    await prepareDirect(page, { bytes });
    const wetty = {};
    if (wettyUrl) {
      log("  opening wetty's page with xterm's DOM renderer");
      wetty.dom = await openWetty(browser, wettyUrl, { cols, rows, font, webgl: false });
    }
    if (wettyUrl && wettyWebgl) {
      log("  opening wetty's page as shipped (WebGL)");
      wetty.shipped = await openWetty(browser, wettyUrl, { cols, rows, font, webgl: true });
    }

    const consoleMs = [];
    const directMs = [];
    const socketMs = [];
    const profile = (name) => profileDir && path.join(profileDir, `${name}.cpuprofile`);
    for (let round = 1; round <= rounds; round++) {
      log(`  round ${round}: cat in the console`);
      consoleMs.push(
        await timeCat(page, { file, round, profile: profile(`page-console-${round}`) }),
      );

      log(`  round ${round}: the same bytes straight into xterm.js in the same page`);
      directMs.push(
        await withCpu(() =>
          profiled(page, profile(`page-direct-${round}`), () =>
            directXterm(page, { cols, rows, round }),
          ),
        ),
      );

      log(`  round ${round}: the same cat over a bare WebSocket in the page, no terminal`);
      await page.bringToFront();
      socketMs.push(
        await withCpu(() =>
          page.evaluate(socketOnly, {
            bearer: env.session.bearer,
            params: { server_id: env.nodeId, login: 'root', term: { w: cols, h: rows } },
            command: `cat '${file}'; echo BENCH-R${round}-''SOCKET\r`,
            marker: `BENCH-R${round}-SOCKET`,
          }),
        ),
      );

      for (const [name, w] of Object.entries(wetty)) {
        log(`  round ${round}: the same cat in wetty's page (${w.renderer} renderer)`);
        const term = w.renderer === 'WebGL' ? 'wetty_term' : undefined;
        w.ms.push(
          await timeCat(w.page, {
            file,
            round,
            term,
            profile: profile(`page-wetty-${name}-${round}`),
          }),
        );
      }
    }
    const rate = (ms) => bytes / (1024 * 1024) / (ms / 1000);
    const summary = (runs) => {
      const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
      return { mibps: rate(best.ms), cpu: best.cpu, runs: runs.map((r) => rate(r.ms)) };
    };
    const wettySummary = ({ ms, renderer, size }) => ({ ...summary(ms), renderer, size });
    return {
      proxy: summary(consoleMs),
      direct: summary(directMs),
      socket: summary(socketMs),
      wetty: wettyUrl && {
        dom: wettySummary(wetty.dom),
        shipped: wetty.shipped && wettySummary(wetty.shipped),
      },
      size: `${cols}x${rows}`,
      font: `${font.fontSize}px ${font.fontFamily}`,
    };
  } finally {
    await browser.close();
  }
}

/**
 * Runs in the page: the terminal protocol over a bare WebSocket, acknowledging output on receipt
 * and rendering nothing (docs/protocol.md §5), to tell the transport's share of (f) from the
 * terminal's. Resolves with the ms from sending `command` until `marker` arrives.
 */
function socketOnly({ bearer, params, command, marker }) {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const frame = (type, text) => {
    const body = encoder.encode(text);
    const out = new Uint8Array(10 + body.length);
    out.set([0x0a, 0x01, 0x31, 0x12, 0x01, type.charCodeAt(0), 0x1a]);
    let at = 7;
    let n = body.length;
    for (; n >= 0x80; n >>>= 7) out[at++] = (n & 0x7f) | 0x80;
    out[at++] = n;
    out.set(body, at);
    return out.subarray(0, at + body.length);
  };
  const query = `params=${encodeURIComponent(JSON.stringify(params))}`;
  const socket = new WebSocket(
    `ws://${location.host}/v1/webapi/sites/-current-/connect/ws?${query}`,
  );
  socket.binaryType = 'arraybuffer';
  let recent = '';
  let start;
  return new Promise((resolve, reject) => {
    socket.onopen = () => socket.send(JSON.stringify({ token: bearer }));
    socket.onclose = (event) => reject(new Error(`socket closed: ${event.code} ${event.reason}`));
    socket.onmessage = (event) => {
      if (typeof event.data === 'string') return;
      const bytes = new Uint8Array(event.data);
      if (bytes[5] !== 0x72) return; // not 'r'
      let at = 7;
      while (bytes[at++] >= 0x80);
      const body = bytes.subarray(at);
      socket.send(frame('o', String(body.length)));
      recent = (recent + decoder.decode(body, { stream: true })).slice(-256);
      if (start === undefined && /[#$] $/.test(recent)) {
        start = performance.now();
        socket.send(frame('r', command));
      } else if (start !== undefined && recent.includes(marker)) {
        const ms = performance.now() - start;
        socket.onclose = null;
        socket.close(1000);
        resolve(ms);
      }
    };
  });
}

/**
 * Loads xterm.js's own build into the page (by CDP evaluation, which the console's CSP does not
 * govern) and makes `bytes` of base64 lines in the page, decoded from bytes by TextDecoder as the
 * console's client decodes output (flat strings: xterm reads concatenated ones much slower).
 */
async function prepareDirect(page, { bytes }) {
  const require = createRequire(path.join(repoRoot, 'packages/web/package.json'));
  const xterm = await readFile(require.resolve('@xterm/xterm/lib/xterm.js'), 'utf8');
  await page.evaluate(`${xterm}\n;undefined`);
  await page.evaluate(
    ({ bytes }) => {
      const alphabet = new TextEncoder().encode(
        'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
      );
      const perChunk = 840; // lines of 76 characters and CRLF: just under 64 KiB
      const random = new Uint8Array(76 * perChunk);
      const decoder = new TextDecoder();
      const chunks = [];
      let made = 0;
      while (made < bytes) {
        const lines = Math.min(perChunk, Math.ceil((bytes - made) / 78));
        const buffer = new Uint8Array(lines * 78);
        crypto.getRandomValues(random);
        for (let line = 0; line < lines; line++) {
          for (let i = 0; i < 76; i++) buffer[line * 78 + i] = alphabet[random[line * 76 + i] & 63];
          buffer[line * 78 + 76] = 13;
          buffer[line * 78 + 77] = 10;
        }
        chunks.push(decoder.decode(buffer));
        made += buffer.length;
      }
      chunks.push(''); // the round's marker goes here
      globalThis.__directChunks = chunks;
    },
    { bytes },
  );
}

/**
 * Opens a terminal with the console's font over the console's own and writes the prepared
 * chunks (64 KiB each, as the console's batcher writes), keeping at most 1 MiB queued in xterm
 * (its write callback is the flow control). Returns the ms from the first write until the marker
 * after the data is on screen; the terminal is then removed.
 */
async function directXterm(page, { cols, rows, round }) {
  await page.evaluate(
    ({ cols, rows }) => {
      const style = getComputedStyle(document.querySelector('.xterm-rows'));
      const box = document.querySelector('.xterm').getBoundingClientRect();
      const holder = document.createElement('div');
      holder.id = 'bench-direct';
      Object.assign(holder.style, {
        position: 'fixed',
        left: `${box.left}px`,
        top: `${box.top}px`,
        width: `${box.width}px`,
        height: `${box.height}px`,
        zIndex: '10000',
        background: '#1b1b22',
      });
      document.body.appendChild(holder);
      const term = new globalThis.Terminal({
        cols,
        rows,
        fontSize: parseFloat(style.fontSize),
        fontFamily: style.fontFamily,
        scrollback: globalThis.GRV_CONFIG?.ui?.scrollbackLines ?? 1000,
        theme: { background: '#1b1b22', foreground: '#e6e6ef', cursor: '#bfacff' },
      });
      term.open(holder);
      globalThis.__directTerm = term;
    },
    { cols, rows },
  );
  await page.evaluate(installWatch, {
    key: '__directDone',
    marker: marker(round),
    rootSelector: '#bench-direct',
  });
  await page.evaluate((end) => {
    const term = globalThis.__directTerm;
    const chunks = globalThis.__directChunks;
    chunks[chunks.length - 1] = `${end}\r\n`;
    const inFlightLimit = 16; // 16 × 64 KiB = 1 MiB queued in xterm at most
    let next = 0;
    let inFlight = 0;
    globalThis.__directStart = performance.now();
    const pump = () => {
      while (inFlight < inFlightLimit && next < chunks.length) {
        inFlight++;
        term.write(chunks[next++], () => {
          inFlight--;
          pump();
        });
      }
    };
    pump();
  }, marker(round));
  await page.waitForFunction(() => window.__directDone !== undefined, null, {
    timeout: 300_000,
    polling: 100,
  });
  return page.evaluate(() => {
    globalThis.__directTerm.dispose();
    document.getElementById('bench-direct').remove();
    return window.__directDone - globalThis.__directStart;
  });
}
