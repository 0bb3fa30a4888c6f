import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHostPort } from './address.js';
import { ConfigError, resolveConfig } from './config.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-config-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function configFile(text: string): Promise<string> {
  const file = path.join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, text);
  return file;
}

describe('resolveConfig', () => {
  it('has the documented defaults', () => {
    const config = resolveConfig({});
    expect(config.dataDir).toBe(path.resolve('postern-data'));
    expect(config.webAddr).toEqual({ host: '0.0.0.0', port: 3080 });
    expect(config.sshAddr).toEqual({ host: '0.0.0.0', port: 3023 });
    // The address the console is served at, so printed links open where it runs.
    expect(config.publicAddr).toEqual({ host: 'localhost', port: 3080 });
    expect(config.auth.rpId).toBe('localhost');
    expect(config.logFormat).toBe('auto');
    expect(config.opensshCheckIntervalMs).toBe(30_000);
    expect(config.storage).toEqual({
      type: 'sqlite',
      path: path.resolve('postern-data/postern.db'),
    });
    expect(config.audit).toEqual({ type: 'sqlite', path: path.resolve('postern-data/audit.db') });
    expect(config.insecureNoTls).toBe(false);
    expect(config.recordings).toEqual({
      dir: path.resolve('postern-data/recordings'),
      onFailure: 'fail_closed',
      diskCheckIntervalMs: 60_000,
      diskWarnPercent: 90,
      spoolFlushIntervalMs: 2000,
    });
    expect(config.auditSpool).toEqual({
      dir: path.resolve('postern-data/audit-spool'),
      maxBytes: 64 * 1024 * 1024,
      onFailure: 'refuse',
    });
  });

  it('reads audit.on_failure and audit.spool_max_bytes, with or without an audit type', async () => {
    const typeless = await configFile(
      `data_dir: ${dir}/data\naudit: {on_failure: continue, spool_max_bytes: 1048576}\n`,
    );
    const config = resolveConfig({ config: typeless });
    expect(config.auditSpool).toEqual({
      dir: `${dir}/data/audit-spool`,
      maxBytes: 1048576,
      onFailure: 'continue',
    });
    expect(config.audit).toEqual({ type: 'sqlite', path: `${dir}/data/audit.db` });
    const typed = await configFile('audit: {type: sqlite, path: a.db, on_failure: refuse}\n');
    expect(resolveConfig({ config: typed }).auditSpool.onFailure).toBe('refuse');
    const bad = await configFile('audit: {on_failure: ignore}\n');
    expect(() => resolveConfig({ config: bad })).toThrow(/audit/);
  });

  it('reads the recordings keys, the dir relative to data_dir', async () => {
    const file = await configFile(
      `data_dir: ${dir}/data\nrecordings: {dir: casts, on_failure: fail_open}\n`,
    );
    expect(resolveConfig({ config: file }).recordings).toEqual({
      dir: `${dir}/data/casts`,
      onFailure: 'fail_open',
      diskCheckIntervalMs: 60_000,
      diskWarnPercent: 90,
      spoolFlushIntervalMs: 2000,
    });
    const disk = await configFile('recordings: {disk_check_interval: 5m, disk_warn_percent: 80}\n');
    expect(resolveConfig({ config: disk }).recordings).toMatchObject({
      diskCheckIntervalMs: 300_000,
      diskWarnPercent: 80,
    });
    const fast = await configFile('recordings: {disk_check_interval: 10ms}\n');
    expect(() => resolveConfig({ config: fast })).toThrow(/disk_check_interval/);
    const bad = await configFile('recordings: {on_failure: ignore}\n');
    expect(() => resolveConfig({ config: bad })).toThrow(/recordings/);
  });

  it('reads recordings in an S3 bucket: location, credentials (or a file of the secret), flush interval', async () => {
    await writeFile(path.join(dir, 'secret'), 'from-a-file\n');
    const file = await configFile(
      [
        'recordings:',
        '  type: s3',
        '  bucket: postern-recordings',
        '  endpoint: http://127.0.0.1:9000',
        '  prefix: prod/',
        '  spool_flush_interval: 1s',
        `  credentials: {access_key_id: AK, secret_access_key_file: ${dir}/secret}`,
      ].join('\n'),
    );
    expect(resolveConfig({ config: file }).recordings).toMatchObject({
      spoolFlushIntervalMs: 1000,
      s3: {
        bucket: 'postern-recordings',
        endpoint: 'http://127.0.0.1:9000',
        region: 'us-east-1',
        pathStyle: true,
        prefix: 'prod/',
        credentials: { accessKeyId: 'AK', secretAccessKey: 'from-a-file' },
      },
    });
    const aws = await configFile('recordings: {type: s3, bucket: b-1, region: eu-west-1}\n');
    expect(resolveConfig({ config: aws }).recordings.s3).toEqual({
      bucket: 'b-1',
      region: 'eu-west-1',
      pathStyle: false,
      prefix: '',
      endpoint: undefined,
      credentials: undefined,
    });
    const refusals: [string, RegExp][] = [
      ['recordings: {type: s3}', /needs recordings.bucket/],
      ['recordings: {bucket: b-1}', /recordings.bucket is for recordings.type: s3/],
      [
        'recordings: {type: s3, bucket: b-1, credentials: {access_key_id: A}}',
        /one of secret_access_key/,
      ],
      ['recordings: {type: s3, bucket: b-1, spool_flush_interval: 10s}', /between 100ms and 5s/],
      ['recordings: {type: s3, bucket: b-1, prefix: "../x y"}', /prefix/],
    ];
    for (const [text, error] of refusals) {
      const bad = await configFile(text);
      expect(() => resolveConfig({ config: bad }), text).toThrow(error);
    }
  });

  it('reads trusted_proxies: addresses and CIDR ranges, none by default', async () => {
    expect(resolveConfig({}).trustedProxies).toEqual([]);
    const file = await configFile('trusted_proxies: [10.0.0.5, 10.1.0.0/16, "fd00::/8"]\n');
    expect(resolveConfig({ config: file }).trustedProxies).toEqual([
      '10.0.0.5',
      '10.1.0.0/16',
      'fd00::/8',
    ]);
    for (const bad of ['10.0.0.0/33', 'lb.internal', '10.0.0.0/', '10.0.0.0/8/1', '::/129']) {
      const text = await configFile(`trusted_proxies: ["${bad}"]\n`);
      expect(() => resolveConfig({ config: text }), bad).toThrow(/trusted_proxies/);
    }
  });

  it('reads file_transfer.max_bytes (1 GiB by default) and ssh_service.sftp_server', async () => {
    expect(resolveConfig({}).fileTransfer).toEqual({ maxBytes: 1024 ** 3 });
    expect(resolveConfig({}).sshService.sftpServer).toBeUndefined();
    const file = await configFile(
      'file_transfer: {max_bytes: 1048576}\nssh_service: {sftp_server: /opt/sftp-server}\n',
    );
    const config = resolveConfig({ config: file });
    expect(config.fileTransfer).toEqual({ maxBytes: 1048576 });
    expect(config.sshService.sftpServer).toBe('/opt/sftp-server');
    const bad = await configFile('file_transfer: {max_bytes: -1}\n');
    expect(() => resolveConfig({ config: bad })).toThrow(/file_transfer\.max_bytes/);
  });

  it('reads assist.openai, the token from its own file; no assistant without it', async () => {
    expect(resolveConfig({}).assist).toBeUndefined();
    const tokenFile = path.join(dir, 'openai.key');
    await writeFile(tokenFile, 'sk-secret\n');
    const file = await configFile(
      `assist:\n  openai: {api_url: 'http://127.0.0.1:11434/v1', model: llama3, api_token_file: ${tokenFile}}\n`,
    );
    expect(resolveConfig({ config: file }).assist).toEqual({
      apiUrl: 'http://127.0.0.1:11434/v1',
      apiToken: 'sk-secret',
      model: 'llama3',
      rateLimit: { burst: 10, perSecond: 20 / 60 },
    });
    const limited = await configFile(
      "assist: {openai: {api_url: 'http://127.0.0.1/', model: m}, rate_limit: {burst: 3, per_minute: 6}}\n",
    );
    expect(resolveConfig({ config: limited }).assist?.rateLimit).toEqual({
      burst: 3,
      perSecond: 0.1,
    });
    const zero = await configFile(
      "assist: {openai: {api_url: 'http://127.0.0.1/', model: m}, rate_limit: {burst: 0}}\n",
    );
    expect(() => resolveConfig({ config: zero })).toThrow(/assist\.rate_limit\.burst/);
    const ftp = await configFile("assist: {openai: {api_url: 'ftp://127.0.0.1/', model: m}}\n");
    expect(() => resolveConfig({ config: ftp })).toThrow(/assist\.openai\.api_url/);
    const noModel = await configFile("assist: {openai: {api_url: 'http://127.0.0.1/'}}\n");
    expect(() => resolveConfig({ config: noModel })).toThrow(/assist\.openai\.model/);
  });

  it('reads ssh.keepalive_interval (10 s) and shutdown_grace (30 s)', async () => {
    expect(resolveConfig({}).ssh).toEqual({ keepaliveIntervalMs: 10_000 });
    expect(resolveConfig({}).shutdownGraceMs).toBe(30_000);
    const file = await configFile('ssh: {keepalive_interval: 2s}\nshutdown_grace: 1m\n');
    const config = resolveConfig({ config: file });
    expect(config.ssh.keepaliveIntervalMs).toBe(2000);
    expect(config.shutdownGraceMs).toBe(60_000);
    const bad = await configFile('ssh: {keepalive_interval: soon}\n');
    expect(() => resolveConfig({ config: bad })).toThrow(/ssh\.keepalive_interval/);
    const unknown = await configFile('ssh: {keepalive: 2s}\n');
    expect(() => resolveConfig({ config: unknown })).toThrow(/ssh/);
  });

  it('reads audit.retention in days or as a duration, and keeps events forever by default', async () => {
    expect(resolveConfig({}).auditRetentionMs).toBe(0);
    const days = await configFile('audit: {type: sqlite, retention: 365d}');
    expect(resolveConfig({ config: days })).toMatchObject({
      auditRetentionMs: 365 * 86_400_000,
      audit: { type: 'sqlite', path: expect.stringMatching(/audit\.db$/) },
    });
    const pg = await configFile(
      'audit: {type: postgres, url: "postgres://postgres@127.0.0.1:5432/test", retention: 12h}',
    );
    const config = resolveConfig({ config: pg });
    expect(config.auditRetentionMs).toBe(12 * 3_600_000);
    expect(config.audit).toEqual({
      type: 'postgres',
      url: 'postgres://postgres@127.0.0.1:5432/test',
    });
    const bad = await configFile('audit: {type: sqlite, retention: forever}');
    expect(() => resolveConfig({ config: bad })).toThrow(/audit\.retention/);
  });

  it('reads every key from the YAML file, and flags win over it', async () => {
    const file = await configFile(`
data_dir: ${dir}/data
cluster_name: from-file
web_addr: 127.0.0.1:4080
ssh_addr: 127.0.0.1:4023
public_addr: proxy.example.com:443
tls: {cert_file: /etc/p/cert.pem, key_file: /etc/p/key.pem}
storage: {type: postgres, url: "postgres://postgres@127.0.0.1:5432/test"}
log: {level: debug, format: json}
openssh_check_interval: 5s
`);
    const fromFile = resolveConfig({ config: file });
    expect(fromFile).toMatchObject({
      dataDir: `${dir}/data`,
      clusterName: 'from-file',
      webAddr: { host: '127.0.0.1', port: 4080 },
      sshAddr: { host: '127.0.0.1', port: 4023 },
      publicAddr: { host: 'proxy.example.com', port: 443 },
      tls: { certFile: '/etc/p/cert.pem', keyFile: '/etc/p/key.pem' },
      storage: { type: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test' },
      audit: { type: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test' },
      logLevel: 'debug',
      logFormat: 'json',
      opensshCheckIntervalMs: 5000,
    });
    const flagged = resolveConfig({
      config: file,
      clusterName: 'from-flag',
      webAddr: '[::1]:5080',
      dataDir: dir,
      logFormat: 'text',
    });
    expect(flagged.clusterName).toBe('from-flag');
    expect(flagged.logFormat).toBe('text');
    expect(flagged.webAddr).toEqual({ host: '::1', port: 5080 });
    expect(flagged.dataDir).toBe(dir);
  });

  it('names the bad key in an invalid file', async () => {
    const file = await configFile('web_addr: nonsense\nstorage: {type: etcd}\nunknown_key: 1\n');
    expect(() => resolveConfig({ config: file })).toThrow(ConfigError);
    try {
      resolveConfig({ config: file });
    } catch (error) {
      expect((error as Error).message).toMatch(/web_addr/);
      expect((error as Error).message).toMatch(/storage/);
      expect((error as Error).message).toMatch(/unknown_key/);
    }
  });

  it('reports unreadable and non-YAML files clearly', async () => {
    expect(() => resolveConfig({ config: path.join(dir, 'missing.yaml') })).toThrow(
      /cannot read config file/,
    );
    const notYaml = await configFile('a: [b');
    expect(() => resolveConfig({ config: notYaml })).toThrow(/not valid YAML/);
  });

  it.each([
    ['0.0.0.0:3080', { host: 'localhost', port: 3080 }],
    ['[::]:3080', { host: 'localhost', port: 3080 }],
    ['127.0.0.1:4080', { host: 'localhost', port: 4080 }],
    ['[::1]:4080', { host: 'localhost', port: 4080 }],
    ['192.0.2.7:3080', { host: '192.0.2.7', port: 3080 }],
    ['proxy.lan:443', { host: 'proxy.lan', port: 443 }],
  ])('with web_addr %s and no public_addr, links name %o', (webAddr, expected) => {
    const config = resolveConfig({ webAddr });
    expect(config.publicAddr).toEqual(expected);
    expect(config.auth.rpId).toBe(expected.host);
  });

  it('rejects a bad log format and a check interval under a second', async () => {
    expect(() => resolveConfig({ logFormat: 'pretty' })).toThrow(
      "--log-format must be one of auto, json, text, got 'pretty'",
    );
    const badFormat = await configFile('log: {format: xml}\n');
    expect(() => resolveConfig({ config: badFormat })).toThrow(/log\.format/);
    const tooOften = await configFile('openssh_check_interval: 500ms\n');
    expect(() => resolveConfig({ config: tooOften })).toThrow(
      'openssh_check_interval must be at least 1s',
    );
  });

  it('rejects a bad address flag and a bad cluster name', () => {
    expect(() => resolveConfig({ webAddr: 'localhost' })).toThrow(/--web-addr must be HOST:PORT/);
    expect(() => resolveConfig({ sshAddr: 'h:99999' })).toThrow(/--ssh-addr/);
    expect(() => resolveConfig({ clusterName: 'a b/c' })).toThrow(/cluster name/);
  });
});

describe('parseHostPort', () => {
  it.each([
    ['0.0.0.0:3080', { host: '0.0.0.0', port: 3080 }],
    [':3080', { host: '', port: 3080 }],
    ['[::]:3023', { host: '::', port: 3023 }],
    ['proxy.example.com:443', { host: 'proxy.example.com', port: 443 }],
  ])('parses %s', (text, expected) => {
    expect(parseHostPort(text, 'x')).toEqual(expected);
  });

  it.each(['3080', 'host:', 'host:port', '::1:22', 'h:70000'])('rejects %s', (text) => {
    expect(() => parseHostPort(text, 'x')).toThrow(ConfigError);
  });
});
