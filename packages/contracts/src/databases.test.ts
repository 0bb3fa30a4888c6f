import { describe, expect, it } from 'vitest';
import {
  createDatabaseRequestSchema,
  databaseHostKind,
  signDatabaseCertRequestSchema,
  updateDatabaseRequestSchema,
} from './databases.js';

describe('databaseHostKind', () => {
  it('tells DNS names from IP addresses and refuses the rest', () => {
    expect(databaseHostKind('db1.example.com')).toBe('dns');
    expect(databaseHostKind('localhost')).toBe('dns');
    expect(databaseHostKind('10.0.0.1')).toBe('ip');
    expect(databaseHostKind('::1')).toBe('ip');
    expect(databaseHostKind('fd00::a:5')).toBe('ip');
    for (const bad of ['', '10.0.0.256', '1.2.3', 'db_1', '*.example.com', '-db', 'a..b', ':::1']) {
      expect(databaseHostKind(bad), bad).toBeUndefined();
    }
    expect(databaseHostKind(`${'a'.repeat(63)}.${'b'.repeat(63)}`)).toBe('dns');
    expect(databaseHostKind('a'.repeat(64))).toBeUndefined();
  });
});

describe('database write schemas', () => {
  it('take labels as the list gives them or as a map, and refuse a name twice', () => {
    const base = { name: 'orders', protocol: 'postgres', uri: 'db1:5432' };
    const listed = createDatabaseRequestSchema.parse({
      ...base,
      labels: [{ name: 'env', value: 'prod' }],
    });
    expect(listed.labels).toEqual({ env: 'prod' });
    expect(createDatabaseRequestSchema.parse({ ...base, labels: { env: 'prod' } }).labels).toEqual({
      env: 'prod',
    });
    expect(createDatabaseRequestSchema.parse(base)).toMatchObject({ labels: {}, description: '' });
    const twice = createDatabaseRequestSchema.safeParse({
      ...base,
      labels: [
        { name: 'env', value: 'a' },
        { name: 'env', value: 'b' },
      ],
    });
    expect(twice.error?.issues[0]?.message).toBe('label env is given twice');
  });

  it('name unknown fields, and ask an update for something to change', () => {
    const unknown = updateDatabaseRequestSchema.safeParse({ protocol: 'mysql' });
    expect(unknown.error?.issues.map((issue) => issue.message)).toEqual([
      'unknown or unchangeable field: protocol (allowed: description, uri, labels, ca_cert, tls)',
    ]);
    const empty = updateDatabaseRequestSchema.safeParse({});
    expect(empty.error?.issues[0]?.message).toMatch(/^name something to change/);
    expect(updateDatabaseRequestSchema.parse({ ca_cert: null })).toEqual({ ca_cert: null });
  });

  it('default a server certificate to 2160h', () => {
    expect(signDatabaseCertRequestSchema.parse({ hostname: ' db1.internal ' })).toEqual({
      hostname: 'db1.internal',
      ttl: '2160h',
    });
  });
});
