// A minimal Chrome DevTools Protocol driver for the browser figure (f).
//
// Why not Playwright here: Playwright enables the DevTools Network domain on every page (and
// worker) it drives, and with it Chromium copies every WebSocket message into a DevTools event
// (base64 for binary ones), sends it to the browser process and on to the driver. For a page that
// receives 40 MiB over a WebSocket that is about as much work again as the receive itself: it
// halved the bare WebSocket figure, while the direct-xterm baseline, which has no socket, paid
// nothing. A person's browser has no DevTools attached, so (f) is timed in a Chromium driven only
// through the domains used below (Runtime, Input, Page, Target, Storage, Profiler), none of which
// watches the network. Playwright stays in the e2e tests, where the instrumentation costs nothing
// that matters.
// Functions passed to Page.evaluate run in the page, with its globals:
/* global location, document */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';

/** Starts headless Chromium at `executable` with `args`, talking CDP over a loopback WebSocket. */
export async function launchChromium({ executable, args = [], width = 1280, height = 800 }) {
  const profileDir = await mkdtemp(path.join(tmpdir(), 'postern-bench-chromium-'));
  const child = spawn(
    executable,
    [
      '--headless',
      `--user-data-dir=${profileDir}`,
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--window-size=${width},${height}`,
      ...args,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const endpoint = await new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start:\n${stderr}`)), 30_000);
    child.stderr.on('data', (data) => {
      stderr += data;
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (!match) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}):\n${stderr}`));
    });
  });
  const connection = await Connection.open(endpoint);
  return new Browser(connection, child, profileDir, { width, height });
}

/** One WebSocket to the browser; page sessions are multiplexed over it ("flatten" mode). */
class Connection {
  static async open(url) {
    const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: 512 * 1024 * 1024 });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new Connection(socket);
  }

  constructor(socket) {
    this.socket = socket;
    this.lastId = 0;
    this.pending = new Map();
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      const waiter = message.id !== undefined && this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
      else waiter.resolve(message.result);
    });
    socket.on('close', () => {
      for (const waiter of this.pending.values()) waiter.reject(new Error('CDP connection closed'));
      this.pending.clear();
    });
  }

  send(method, params = {}, sessionId) {
    const id = ++this.lastId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.socket.send(JSON.stringify({ id, method, params, sessionId }));
    });
  }

  close() {
    this.socket.close();
  }
}

class Browser {
  constructor(connection, child, profileDir, size) {
    this.connection = connection;
    this.child = child;
    this.profileDir = profileDir;
    this.size = size;
  }

  /** Cookies for every page, in `Storage.setCookies` form. */
  setCookies(cookies) {
    return this.connection.send('Storage.setCookies', { cookies });
  }

  /** A new tab at about:blank; `initScript` (a function and its argument) runs in every document. */
  async newPage({ initScript } = {}) {
    const { targetId } = await this.connection.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.connection.send('Target.attachToTarget', {
      targetId,
      flatten: true,
    });
    const page = new Page(this.connection, sessionId, targetId);
    await page.send('Page.enable');
    // The viewport, as Playwright sets one: the same for every tab, whatever the window.
    await page.send('Emulation.setDeviceMetricsOverride', {
      ...this.size,
      deviceScaleFactor: 1,
      mobile: false,
    });
    if (initScript) {
      await page.send('Page.addScriptToEvaluateOnNewDocument', {
        source: `(${initScript.fn})(${JSON.stringify(initScript.arg)})`,
      });
    }
    return page;
  }

  async close() {
    await this.connection.send('Browser.close').catch(() => {});
    this.connection.close();
    if (this.child.exitCode === null) {
      await new Promise((resolve) => {
        const timer = setTimeout(() => {
          this.child.kill('SIGKILL');
          resolve();
        }, 5000);
        this.child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await rm(this.profileDir, { recursive: true, force: true });
  }
}

/** Enter as a keyboard sends it: keydown (with its "\r" text) and keyup. */
const enterKey = { key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13 };

class Page {
  constructor(connection, sessionId, targetId) {
    this.connection = connection;
    this.sessionId = sessionId;
    this.targetId = targetId;
  }

  send(method, params) {
    return this.connection.send(method, params, this.sessionId);
  }

  /** Runs `fn(arg)` in the page (awaiting a promise it returns) and returns its JSON value. */
  async evaluate(fn, arg) {
    const expression =
      typeof fn === 'function' ? `(${fn})(${arg === undefined ? '' : JSON.stringify(arg)})` : fn;
    const result = await this.send('Runtime.evaluate', {
      expression,
      awaitPromise: true,
      returnByValue: true,
    });
    if (result.exceptionDetails) {
      const { exception, text } = result.exceptionDetails;
      throw new Error(`in the page: ${exception?.description ?? text}`);
    }
    return result.result.value;
  }

  /** Polls `fn(arg)` in the page every `polling` ms until it is truthy, and returns that value. */
  async waitForFunction(fn, arg, { timeout = 30_000, polling = 100 } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = await this.evaluate(fn, arg);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${fn}`);
      await new Promise((resolve) => setTimeout(resolve, polling));
    }
  }

  /** Navigates from about:blank and waits for the document (after any redirect) to be loaded. */
  async goto(url) {
    const { errorText } = await this.send('Page.navigate', { url });
    if (errorText) throw new Error(`navigating to ${url}: ${errorText}`);
    await this.waitForFunction(
      () => location.href !== 'about:blank' && document.readyState === 'complete',
    );
  }

  /** Brings the tab to the front: a hidden tab gets no animation frames, so xterm paints nothing. */
  async bringToFront() {
    await this.send('Page.bringToFront');
  }

  /** Types `text` into the focused element, key by key, as a keyboard would. */
  async type(text) {
    for (const char of text) {
      await this.send('Input.dispatchKeyEvent', { type: 'keyDown', key: char, text: char });
      await this.send('Input.dispatchKeyEvent', { type: 'keyUp', key: char });
    }
  }

  async pressEnter() {
    await this.send('Input.dispatchKeyEvent', { type: 'keyDown', ...enterKey, text: '\r' });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...enterKey });
  }

  /** Profiles the page's main thread around `run`; resolves with [run's value, the profile]. */
  async profiled(run) {
    await this.send('Profiler.enable');
    await this.send('Profiler.start');
    const outcome = await run().then(
      (value) => ({ value }),
      (error) => ({ error }),
    );
    const { profile } = await this.send('Profiler.stop');
    await this.send('Profiler.disable');
    if (outcome.error) throw outcome.error;
    return [outcome.value, profile];
  }
}
