// The desktop bench's real parts (bench/desktop.mjs): TigerVNC's Xvnc and the full-screen
// animation it shows, both started in the bench's temp dir.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { accepts, freePort } from './ports.mjs';

/** TigerVNC's Xvnc as packages/server/src/testing/xvnc.testkit.ts starts it, at `screen`'s size. */
export async function startXvnc(xvncDir, screen) {
  await mkdir(xvncDir, { recursive: true });
  const passwordFile = path.join(xvncDir, 'passwd');
  await writeFile(passwordFile, await runTool('vncpasswd', ['-f'], `${screen.password}\n`));
  for (let attempt = 0; attempt < 5; attempt++) {
    const display = 100 + Math.floor(Math.random() * 800);
    if (existsSync(`/tmp/.X${display}-lock`) || existsSync(`/tmp/.X11-unix/X${display}`)) continue;
    const port = await freePort();
    const child = spawn(
      '/usr/bin/Xvnc',
      [
        `:${display}`,
        ...['-geometry', `${screen.width}x${screen.height}`, '-depth', '24'],
        ...['-rfbport', String(port), '-localhost', '-interface', '127.0.0.1'],
        ...['-nolisten', 'tcp', '-desktop', 'postern-bench'],
        ...['-SecurityTypes', 'VncAuth', '-PasswordFile', passwordFile],
      ],
      { cwd: xvncDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => {
      child.once('exit', resolve);
      child.once('error', (error) => {
        output += `cannot run /usr/bin/Xvnc: ${error.message}\n`;
        resolve();
      });
    });
    let running = true;
    void exited.then(() => (running = false));
    const deadline = Date.now() + 15_000;
    while (running && Date.now() < deadline && !(await accepts(port))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!running) {
      if (/already active|Cannot establish any listening sockets/.test(output)) continue;
      throw new Error(`Xvnc exited:\n${output}`);
    }
    if (Date.now() >= deadline) {
      child.kill('SIGKILL');
      throw new Error(`Xvnc did not listen:\n${output}`);
    }
    const env = { ...process.env, DISPLAY: `:${display}`, HOME: xvncDir };
    return {
      port,
      display,
      env,
      async stop() {
        if (running) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      },
    };
  }
  throw new Error('Xvnc found no free display');
}

function runTool(command, args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    let err = '';
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`${command}: ${err}`)),
    );
    child.stdin.end(input);
  });
}

/**
 * A full-screen animation on the Xvnc display, `fps` frames a second (0: as fast as it can): python3's Tk, a borderless 1280×800 canvas
 * scrolling a page of text lines and coloured bars 4 px a frame (Tk draws each frame into a
 * pixmap and copies it to the window: the whole screen changes each frame), its frame number
 * in 8 squares in the corner; it prints its frame count every second.
 */
export async function startAnimation(xvnc, file, screen, fps) {
  await writeFile(file, animationPy());
  const child = spawn('python3', [file, String(screen.width), String(screen.height), String(fps)], {
    env: xvnc.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let last = { n: 0, t: 0 };
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) {
      const [n, t] = line.split(' ').map(Number);
      if (Number.isFinite(n) && Number.isFinite(t)) last = { n, t };
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 15_000;
  while (last.n === 0) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the animation (python3 with Tk) did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    /** Its frame count and its clock (s) at its last report. */
    frames: () => last,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function animationPy() {
  return `import random, sys, time, tkinter as tk
W, H, rate = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
root = tk.Tk()
root.overrideredirect(True)
root.geometry(f'{W}x{H}+0+0')
c = tk.Canvas(root, width=W, height=H, highlightthickness=0, bg='white')
c.pack()
rnd = random.Random(7)
words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor'.split()
LINE, WRAP = 20, 400
c.create_rectangle(0, 0, 200, H, fill='#e8eaf0', outline='')
for i in range((H + WRAP) // LINE):
    y = i * LINE
    if i % 12 == 0:
        colour = rnd.choice(['#3a6ea5', '#a53a3a', '#3aa55a'])
        c.create_rectangle(240, y + 2, 240 + rnd.randint(200, 900), y + 18, fill=colour,
                           outline='', tags='doc')
    else:
        text = ' '.join(rnd.choice(words) for _ in range(rnd.randint(6, 16)))
        c.create_text(240, y + 10, anchor='w', text=text, fill='#202028',
                      font=('DejaVu Sans', 11), tags='doc')
marks = [c.create_rectangle(8 + b * 16, 8, 24 + b * 16, 24, outline='', fill='black')
         for b in range(8)]
n, offset = 0, 0
started = time.monotonic()
reported = started
def step():
    global n, offset, reported
    n += 1
    offset = (offset + 4) % WRAP
    c.move('doc', 0, -4 if offset else WRAP - 4)
    for b, m in enumerate(marks):
        c.itemconfigure(m, fill='white' if (n >> b) & 1 else 'black')
    c.update_idletasks()
    now = time.monotonic()
    if now - reported >= 0.5:
        print(n, round(now - started, 3), flush=True)
        reported = now
    delay = started + n / rate - time.monotonic() if rate > 0 else 0
    root.after(max(1, int(delay * 1000)), step)
root.after(50, step)
root.mainloop()
`;
}
