// The desktop bench's browser side (bench/desktop.mjs): its own server (the page, noVNC's
// files, the bare relay and the control socket) and the tabs that run noVNC through a path.
// Functions passed to page.evaluate run in the page, with its globals:
/* global window, document */
import { spawn } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { connect as tcpConnect } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createWebSocketStream, WebSocketServer } from 'ws';
import { repoRoot } from './postern.mjs';

/**
 * The bench's own server on 127.0.0.1: the page and noVNC's files under /__bench/, the bare
 * relay (a WebSocket piped to a TCP connection to the Xvnc, both ways, nothing read) and the
 * control socket, where the page asks for `xsetroot -solid <colour>`.
 */
export async function startBenchServer(xvnc, screen) {
  const require = createRequire(path.join(repoRoot, 'packages/web/package.json'));
  // The package exports core/rfb.js only: its directory is two levels up.
  const novncDir = path.dirname(path.dirname(require.resolve('@novnc/novnc')));
  const types = { '.js': 'text/javascript', '.html': 'text/html', '.json': 'application/json' };
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (url.pathname === '/__bench/desktop.html') {
      res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' });
      return res.end(pageHtml('./', screen));
    }
    const rest = url.pathname.startsWith('/__bench/novnc/')
      ? path.normalize(url.pathname.slice('/__bench/novnc/'.length))
      : undefined;
    const file = rest && !rest.startsWith('..') ? path.join(novncDir, rest) : undefined;
    if (!file || !existsSync(file)) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, {
      'content-type': types[path.extname(file)] ?? 'application/octet-stream',
      'access-control-allow-origin': '*',
    });
    createReadStream(file).pipe(res);
  });
  const relay = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const control = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sockets = new Set();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req, socket, head) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    const wss = { '/__bench/relay': relay, '/__bench/control': control }[pathname];
    if (!wss) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });
  relay.on('connection', (ws) => {
    const browserSide = createWebSocketStream(ws);
    const desktop = tcpConnect(xvnc.port, '127.0.0.1');
    desktop.setNoDelay(true);
    const end = () => {
      browserSide.destroy();
      desktop.destroy();
    };
    browserSide.on('error', end);
    desktop.on('error', end);
    browserSide.pipe(desktop);
    desktop.pipe(browserSide);
  });
  const xsetrootRuns = [];
  control.on('connection', (ws) => {
    ws.on('message', (data) => {
      const { solid } = JSON.parse(data.toString());
      if (!/^#[0-9a-f]{6}$/.test(solid)) return;
      const begin = performance.now();
      const child = spawn('xsetroot', ['-solid', solid], { env: xvnc.env, stdio: 'ignore' });
      child.once('exit', () => xsetrootRuns.push(performance.now() - begin));
      child.once('error', () => ws.close(1011, 'cannot run xsetroot'));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://localhost:${port}`,
    screen,
    wsUrl: `ws://localhost:${port}`,
    xsetrootRuns,
    async stop() {
      for (const ws of [...relay.clients, ...control.clients]) ws.terminate();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A tab at `origin`/__bench/desktop.html, noVNC connected through `via`. At the bench's own
 * origin the page is the bench server's; at another (Postern's: its connect socket refuses pages
 * of other origins) the tab opens that URL (Postern's 404, a JSON document) and the page is
 * built into it by evaluation, CSP bypassed, noVNC's modules imported from the bench server
 * (CORS allows it). (A document answered through CDP's Fetch domain opens no WebSocket at all.)
 */
export async function openViewer(browser, benchServer, via) {
  const page = await browser.newPage();
  const closeTab = () =>
    browser.connection.send('Target.closeTarget', { targetId: page.targetId }).catch(() => {});
  try {
    const own = via.origin === benchServer.url;
    if (!own) await page.send('Page.setBypassCSP', { enabled: true });
    await page.goto(`${via.origin}/__bench/desktop.html`);
    if (!own)
      await page.evaluate(buildPage, pageModule(`${benchServer.url}/__bench/`, benchServer.screen));
    await page.waitForFunction(() => window.bench !== undefined, null, { timeout: 15_000 });
    await page.bringToFront();
    await page.evaluate((arg) => window.bench.connect(arg), via.connect);
    return {
      page,
      async close() {
        await page.evaluate(() => window.bench.disconnect()).catch(() => {});
        await closeTab();
      },
    };
  } catch (error) {
    await closeTab();
    throw error;
  }
}

/** The page at the bench's origin. */
function pageHtml(base, screen) {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>postern desktop bench</title></head>
<body><script>(${buildPage})(${JSON.stringify(pageModule(base, screen)).replaceAll('</', '<\\/')})</script></body></html>
`;
}

/** Runs in the page: a black page holding #screen, and the bench's module. */
function buildPage(module) {
  document.body.innerHTML = '';
  document.documentElement.style.cssText = 'margin: 0; background: #000; overflow: hidden';
  document.body.style.cssText = 'margin: 0';
  const screen = document.createElement('div');
  screen.id = 'screen';
  screen.style.cssText = `width: ${module.width}px; height: ${module.height}px`;
  document.body.append(screen);
  const script = document.createElement('script');
  script.type = 'module';
  script.textContent = module.source;
  document.head.append(script);
}

/** The page's module: noVNC's ES modules, and what the bench calls in it (window.bench). */
function pageModule(base, screen) {
  const source = `
import RFB from '${base}novnc/core/rfb.js';
import Display from '${base}novnc/core/display.js';

const W = ${screen.width};
const H = ${screen.height};
const screen = document.getElementById('screen');
let rfb;
let socket;
let ctx;
// What a drawn screen is checked for: a colour to wait for (latency), frame numbers (fps).
let watch;
let counting;

const pixel = (x, y) => ctx.getImageData(x, y, 1, 1).data;
const near = (data, rgb) => rgb.every((v, i) => Math.abs(data[i] - v) <= 8);
/** The animation's frame number: 8 squares of 16 px in its corner, white for a 1 bit. */
const frameNumber = () => {
  const data = ctx.getImageData(8, 8, 128, 16).data;
  let n = 0;
  for (let b = 0; b < 8; b++) {
    const at = (8 * 128 + b * 16 + 8) * 4;
    if (data[at] + data[at + 1] + data[at + 2] > 384) n |= 1 << b;
  }
  return n;
};

// Called after every FramebufferUpdate noVNC draws (a flip queued behind images is seen when
// the queue draws it).
const flip = Display.prototype.flip;
Display.prototype.flip = function (fromQueue) {
  const queued = !fromQueue && this._renderQ.length !== 0;
  flip.call(this, fromQueue);
  if (queued || !ctx) return;
  const now = performance.now();
  if (watch && watch.drawn === undefined && near(pixel(W / 2, H / 2), watch.rgb)) watch.drawn = now;
  if (counting) {
    counting.updates++;
    const n = frameNumber();
    if (n !== counting.last) {
      if (counting.last !== undefined) counting.advanced += (n - counting.last + 256) % 256;
      counting.last = n;
      counting.frames++;
    }
  }
};

const onFrame = () => {
  if (watch && watch.frame === undefined && ctx && near(pixel(W / 2, H / 2), watch.rgb)) {
    watch.frame = performance.now();
  }
  requestAnimationFrame(onFrame);
};
requestAnimationFrame(onFrame);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// What Postern relayed before it read Tight (Raw, CopyRect, ZRLE and the pseudo-encodings), in
// noVNC's order: the baseline that shows what Tight with JPEG is worth.
const zrleOnly = new Set([0, 1, 16, -223, -224, -239, -308, -312, -313]);

window.bench = {
  connect({ kind, url, token, password, zrleOnly: onlyZrle }) {
    if (onlyZrle) {
      const clientEncodings = RFB.messages.clientEncodings;
      RFB.messages.clientEncodings = (sock, list) =>
        clientEncodings(sock, list.filter((e) => zrleOnly.has(e)));
    }
    return new Promise((resolve, reject) => {
      const start = (channel, options) => {
        rfb = new RFB(screen, channel, { shared: true, ...options });
        rfb.addEventListener('connect', () => {
          ctx = screen.querySelector('canvas').getContext('2d');
          resolve();
        });
        rfb.addEventListener('disconnect', (e) => reject(new Error('disconnected, clean: ' + e.detail.clean)));
        rfb.addEventListener('securityfailure', (e) => reject(new Error('security failure: ' + e.detail.reason)));
      };
      if (kind === 'relay') return start(url, { credentials: { password } });
      // As the console (desktopConnection.ts): the bearer in the first frame, then the open
      // socket handed to noVNC in the message event that says ok.
      socket = new WebSocket(url);
      socket.binaryType = 'arraybuffer';
      socket.onopen = () => socket.send(JSON.stringify({ token }));
      socket.onclose = (e) => reject(new Error('socket closed: ' + e.code + ' ' + e.reason));
      socket.onmessage = (e) => {
        if (typeof e.data !== 'string') return reject(new Error('RFB before the answer'));
        const answer = JSON.parse(e.data);
        if (answer.type !== 'create_session_response') return;
        if (answer.status !== 'ok') return reject(new Error(answer.message || 'refused'));
        socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
        start(socket, {});
      };
    });
  },

  /** Colour changes asked of the bench, each timed until drawn and until shown by a frame. */
  async latency({ samples, warmUps, control }) {
    const ws = new WebSocket(control);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new Error('no control socket'));
    });
    const colours = ['#d02040', '#2050e0', '#30b050', '#e0c020'];
    const results = [];
    for (let i = 0; i < samples + warmUps; i++) {
      const hex = colours[i % colours.length];
      const rgb = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
      await sleep(120 + Math.random() * 60);
      watch = { rgb, start: performance.now() };
      ws.send(JSON.stringify({ solid: hex }));
      const deadline = watch.start + 5000;
      while (watch.frame === undefined && performance.now() < deadline) await sleep(5);
      if (i >= warmUps) {
        results.push({
          frame: watch.frame === undefined ? null : watch.frame - watch.start,
          drawn: watch.drawn === undefined ? null : watch.drawn - watch.start,
        });
      }
      watch = undefined;
    }
    ws.close();
    return results;
  },

  /** Animation frames drawn over the next seconds. */
  async fps(seconds) {
    counting = { updates: 0, frames: 0, advanced: 0, last: undefined };
    const begin = performance.now();
    await sleep(seconds * 1000);
    const elapsed = (performance.now() - begin) / 1000;
    const { updates, frames, advanced } = counting;
    counting = undefined;
    return {
      framesPerSecond: frames / elapsed,
      updatesPerSecond: updates / elapsed,
      advancedPerFrame: frames > 1 ? advanced / (frames - 1) : NaN,
    };
  },

  disconnect() {
    rfb?.disconnect();
  },
};
`;
  return { source, width: screen.width, height: screen.height };
}
