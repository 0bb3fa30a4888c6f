// A real S3 server for tests and benches: OpenStack Swift. Plain JavaScript (types in
// swift-server.d.mts) so that both the TypeScript testkits (packages/server/src/testing/
// swift.testkit.ts, e2e) and the .mjs benches (bench/ha.mjs) start it the same way.
//
// @aws-sdk/client-s3 is packages/server's dependency, which npm's workspaces install at the root.
import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** @import { RunningSwift, SwiftCredentials } from './swift-server.mjs' */
/** @typedef {'account' | 'container' | 'object' | 'proxy'} Server */
/**
 * @typedef {object} Daemon
 * @property {() => string} output What it printed so far.
 * @property {() => boolean} running
 * @property {() => Promise<void>} stop Ends it (SIGTERM) and waits for that.
 */

/** Debian's Swift runs on Debian's Python: a python3 earlier in PATH (pyenv) has no `swift`. */
const PYTHON = '/usr/bin/python3';
/** @type {readonly ['account', 'container', 'object']} */
const STORAGE = ['account', 'container', 'object'];
/** @type {readonly Server[]} */
const SERVERS = [...STORAGE, 'proxy'];

/**
 * An S3 client for `swift` that sends only the checksums S3 requires (as Swift 2.30 expects).
 * @param {SwiftCredentials} swift
 * @returns {S3Client}
 */
export function swiftS3Client(swift, maxAttempts = 3) {
  return new S3Client({
    endpoint: swift.endpoint,
    region: swift.region,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts,
  });
}

/**
 * A real S3 server: OpenStack Swift 2.30 (Debian's swift-* packages, installed by
 * scripts/ensure-test-deps.sh) with its s3api middleware and tempauth (`test:tester`/`testing`).
 * Four single-process servers on free loopback ports over one-replica rings, all in a temp dir
 * under `options.dir` (default os.tmpdir(); it needs xattrs, which ext4 and tmpfs have).
 * @param {{ dir?: string }} [options]
 * @returns {Promise<RunningSwift>}
 */
export async function startSwift(options = {}) {
  // A port taken between freePort() and Swift's bind fails that attempt: then try fresh ports.
  for (let attempt = 1; ; attempt++) {
    const dir = await mkdtemp(path.join(options.dir ?? tmpdir(), 'postern-swift-'));
    try {
      return await launch(dir);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      if (attempt >= 3 || !String(error).includes('Could not bind')) throw error;
    }
  }
}

/**
 * @param {string} dir
 * @returns {Promise<RunningSwift>}
 */
async function launch(dir) {
  const ports = /** @type {Record<Server, number>} */ (
    Object.fromEntries(
      await Promise.all(
        SERVERS.map(async (server) => /** @type {const} */ ([server, await freePort()])),
      ),
    )
  );
  await mkdir(path.join(dir, 'devices', 'd1'), { recursive: true });
  await writeConfigs(dir, ports);
  // The storage servers need no rings: they start while the rings are built, the proxy after.
  /** @type {Map<Server, Daemon>} */
  const daemons = new Map();
  /** @param {Server} server */
  const serve = (server) =>
    daemons.set(server, spawnDaemon(PYTHON, ['-c', SERVE, dir, `${server}-server`], dir));
  const output = () => [...daemons.values()].map((daemon) => daemon.output()).join('');
  const stop = async () => {
    await Promise.all([...daemons.values()].map((daemon) => daemon.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    STORAGE.forEach(serve);
    const ringPorts = STORAGE.map((server) => String(ports[server]));
    await promisify(execFile)(PYTHON, ['-c', BUILD_RINGS, dir, ...ringPorts]);
    serve('proxy');
    await Promise.all([...daemons].map(([server, daemon]) => listening(server, daemon)));
    /** @type {SwiftCredentials} */
    const swift = {
      endpoint: `http://127.0.0.1:${ports.proxy}`,
      region: 'us-east-1',
      accessKeyId: 'test:tester',
      secretAccessKey: 'testing',
    };
    const s3 = swiftS3Client(swift);
    // Listening is not serving yet: one signed request through s3api, tempauth and the ring.
    await s3.send(new ListBucketsCommand({}));
    return {
      ...swift,
      async createBucket(name) {
        await s3.send(new CreateBucketCommand({ Bucket: name }));
      },
      output,
      async stop() {
        s3.destroy();
        await stop();
      },
    };
  } catch (error) {
    const logs = output();
    await stop();
    throw new Error(`Swift did not start: ${String(error)}\n${logs}`, { cause: error });
  }
}

/**
 * Resolves once `daemon` says it is listening (SERVE's line). Not a connect to its port: should
 * something else hold that port, Swift (SO_REUSEPORT) retries its bind for bind_timeout, then
 * exits, while the port answers all along.
 * @param {Server} server
 * @param {Daemon} daemon
 */
async function listening(server, daemon) {
  const deadline = Date.now() + 15_000;
  while (!daemon.output().includes(`swift-${server}-server listening`)) {
    if (!daemon.running()) throw new Error(`swift-${server}-server exited`);
    if (Date.now() > deadline) throw new Error(`swift-${server}-server did not start in 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A free loopback port, as the kernel gives one (as sshd.testkit.ts's freePort). */
async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) =>
    server.once('error', reject).listen(0, '127.0.0.1', () => resolve(undefined)),
  );
  const address = server.address();
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  if (!address || typeof address === 'string') throw new Error('no port from the kernel');
  return address.port;
}

/**
 * Servers still running: a test that timed out must not leave them behind the process.
 * @type {Set<() => void>}
 */
const running = new Set();
process.once('exit', () => {
  for (const kill of running) kill();
});

/**
 * A server process, its output kept (as daemon.testkit.ts's spawnDaemon). A binary that is
 * missing shows in its output ("cannot run …") rather than as an unhandled error.
 * @param {string} binary
 * @param {string[]} args
 * @param {string} cwd
 * @returns {Daemon}
 */
function spawnDaemon(binary, args, cwd) {
  const child = spawn(binary, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (/** @type {Buffer} */ chunk) => (output += chunk.toString()));
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => (output += chunk.toString()));
  let alive = true;
  const kill = () => child.kill('SIGTERM');
  running.add(kill);
  /** @type {Promise<void>} */
  const exited = new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      output += `cannot run ${binary}: ${error.message}\n`;
      resolve();
    });
  });
  void exited.then(() => {
    alive = false;
    running.delete(kill);
  });
  return {
    output: () => output,
    running: () => alive,
    async stop() {
      if (alive) kill();
      await exited;
    },
  };
}

/**
 * Runs one server (argv: dir, section) with its config from `dir`. Swift 2.30 reads swift.conf
 * (hash prefix, storage policies, constraints) from /etc/swift whatever `swift_dir` says, so
 * this points it at ours first; `verbose` logs to stderr, where spawnDaemon collects it. It says
 * when it listens: get_socket() is where Swift binds its port.
 */
const SERVE = `
import ctypes, signal, sys
# Ends with the process that started it, even one killed outright (PR_SET_PDEATHSIG).
ctypes.CDLL(None).prctl(1, signal.SIGTERM)
from swift.common import constraints, storage_policy, utils
section = sys.argv[2]
utils.set_swift_dir(sys.argv[1])
storage_policy.reload_storage_policies()
constraints.reload_constraints()
from swift.common import wsgi
from swift.obj import server

def get_socket(conf, bind=wsgi.get_socket):
    sock = bind(conf)
    print('swift-' + section + ' listening on 127.0.0.1:' + conf['bind_port'], flush=True)
    return sock
wsgi.get_socket = get_socket

class NoCache:
    """A memcache client that remembers nothing (see the proxy's [filter:cache])."""
    def get(self, key, *args, **kwargs):
        return None
    def get_multi(self, keys, *args, **kwargs):
        return [None] * len(keys)
    def set(self, *args, **kwargs):
        pass
    set_multi = delete = set

def no_cache(global_conf, **local_conf):
    cache = NoCache()
    def middleware(app):
        def call(env, start_response):
            env['swift.cache'] = cache
            return app(env, start_response)
        return call
    return middleware

extra = {'global_conf_callback': server.global_conf_callback} if section == 'object-server' else {}
sys.exit(wsgi.run_wsgi(sys.argv[1] + '/' + section + '.conf', section, verbose=True, **extra))
`;

/**
 * swift-ring-builder's own main(), run for the three rings in one Python (one start-up instead
 * of nine): one device (d1) on each server's port, one replica, 2^6 partitions.
 * argv: dir, then the account, container and object servers' ports.
 */
const BUILD_RINGS = `
import sys
from swift.cli.ringbuilder import main
dir = sys.argv[1]
for ring, port in zip(('account', 'container', 'object'), sys.argv[2:5]):
    builder = dir + '/' + ring + '.builder'
    for command in (['create', '6', '1', '0'], ['add', 'r1z1-127.0.0.1:' + port + '/d1', '1'], ['rebalance']):
        try:
            main(['swift-ring-builder', builder] + command)
        except SystemExit as exit:
            # 0 is success and 1 success with warnings (swift-ring-builder's exit codes).
            if exit.code not in (None, 0, 1):
                raise
`;

/**
 * @param {string} dir
 * @param {Record<Server, number>} ports
 */
async function writeConfigs(dir, ports) {
  /**
   * @param {string} name
   * @param {string} text
   */
  const conf = (name, text) => writeFile(path.join(dir, name), text.replace(/^\s+/gm, ''));
  await conf(
    'swift.conf',
    `[swift-hash]
    swift_hash_path_prefix = postern-test
    swift_hash_path_suffix = postern-test
    [storage-policy:0]
    name = Policy-0
    default = yes
    `,
  );
  /** @param {Server} server */
  const common = (server) => `[DEFAULT]
    bind_ip = 127.0.0.1
    bind_port = ${ports[server]}
    # Give up on a taken port soon (startSwift retries on other ports) rather than after 30 s.
    bind_timeout = 2
    # One process each, no forked workers: light, SIGTERM ends the whole server, and its stderr
    # stays ours (workers get theirs sent to syslog).
    workers = 0
    # Workers would switch to this user (\`swift\` by default); say who we are in case.
    user = ${userInfo().username}
    swift_dir = ${dir}
    devices = ${path.join(dir, 'devices')}
    mount_check = false
    disable_fallocate = true
    fallocate_reserve = 0
    # Swift logs to syslog besides stderr: not the host's (/dev/log) but nowhere (discard).
    log_udp_host = 127.0.0.1
    log_udp_port = 9
    `;
  for (const server of STORAGE) {
    await conf(
      `${server}-server.conf`,
      `${common(server)}
      [pipeline:main]
      pipeline = ${server}-server
      [app:${server}-server]
      use = egg:swift#${server}
      # The proxy logs every request already.
      log_requests = false
      `,
    );
  }
  // Pipeline name → middleware (egg:swift#…), for the filters that need no settings.
  const plain = {
    catch_errors: 'catch_errors',
    gatekeeper: 'gatekeeper',
    healthcheck: 'healthcheck',
    'proxy-logging': 'proxy_logging',
    listing_formats: 'listing_formats',
    copy: 'copy',
    slo: 'slo',
    dlo: 'dlo',
    versioned_writes: 'versioned_writes',
  };
  await conf(
    'proxy-server.conf',
    `${common('proxy')}
    [pipeline:main]
    # s3api needs an auth (tempauth) after it, and slo for multipart uploads; copy is for
    # CopyObject and UploadPartCopy. The proxy would add versioned_writes itself, with a warning.
    pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo versioned_writes proxy-logging proxy-server
    [app:proxy-server]
    use = egg:swift#proxy
    # tempauth's accounts (AUTH_test) come to exist when first used.
    account_autocreate = true
    [filter:s3api]
    use = egg:swift#s3api
    location = us-east-1
    [filter:tempauth]
    use = egg:swift#tempauth
    user_test_tester = testing .admin
    [filter:cache]
    # tempauth insists on a memcache client, but there is no memcached: a client that remembers
    # nothing (SERVE's no_cache). It also keeps the proxy from caching account and container
    # info, so a deleted bucket is gone at once, as in S3.
    paste.filter_factory = __main__:no_cache
    ${Object.entries(plain)
      .map(([name, egg]) => `[filter:${name}]\nuse = egg:swift#${egg}`)
      .join('\n')}
    `,
  );
}
