import { describe, expect, it } from 'vitest';
import { auditCatalogue, describeAuditCode } from './catalogue.js';
import { databaseEvents } from './families/databases.js';
import { identityEvents } from './families/identity.js';
import { resourceEvents } from './families/resources.js';
import { sessionEvents } from './families/sessions.js';
import { sftpEvents } from './families/sftp.js';
import { formatAuditEvent, truncateQuery } from './format.js';

describe('auditCatalogue', () => {
  it('gives every entry a type, a description, a message and the severity of its suffix', () => {
    const suffixSeverity = { I: 'info', W: 'warning', E: 'error' } as const;
    for (const [code, entry] of Object.entries(auditCatalogue)) {
      expect(code).toMatch(/^T[0-9A-Z]+[IWE]$/);
      expect(entry.type, code).not.toBe('');
      expect(entry.desc, code).not.toBe('');
      expect(entry.message, code).not.toBe('');
      expect(entry.severity, code).toBe(suffixSeverity[code.at(-1) as 'I' | 'W' | 'E']);
    }
  });

  it('never gives one code to two families (a later family would silently win)', () => {
    const families = [identityEvents, sessionEvents, sftpEvents, databaseEvents, resourceEvents];
    const codes = families.flatMap((family) => Object.keys(family));
    expect(codes.length).toBe(new Set(codes).size);
  });

  it('covers every event family of spec §8', () => {
    const families = [
      'access_request.create',
      'access_request.update',
      'access_request.review',
      'access_request.delete',
      'access_request.search',
      'session.start',
      'session.end',
      'session.join',
      'session.leave',
      'session.rejected',
      'session.command',
      'session.disk',
      'session.network',
      'session.process_exit',
      'session.data',
      'session.upload',
      'user.create',
      'user.update',
      'user.delete',
      'user.password_change',
      'user.login',
      'auth',
      'client.disconnect',
      'exec',
      'scp',
      'sftp',
      'port',
      'subsystem',
      'resize',
      'x11-forward',
      'github.created',
      'github.deleted',
      'oidc.created',
      'oidc.deleted',
      'saml.created',
      'saml.deleted',
      'role.created',
      'lock.created',
      'trusted_cluster.create',
      'kube.create',
      'db.create',
      'app.create',
      'login_rule.create',
      'saml.idp.service.provider.create',
      'db.session.query',
      'db.session.postgres.statements.parse',
      'db.session.mysql.statements.prepare',
      'db.session.sqlserver.rpc_request',
      'db.session.cassandra.execute',
      'db.session.elasticsearch.request',
      'db.session.opensearch.request',
      'db.session.dynamodb.request',
      'mfa.add',
      'mfa.delete',
      'billing.create_card',
      'billing.update_info',
      'recovery_token.create',
      'recovery_code.generated',
      'windows.desktop.session.start',
      'desktop.clipboard.send',
      'desktop.directory.share',
      'device.enroll',
      'cert.create',
      'upgradewindowstart.update',
      'session.recording.access',
      'ssm.run',
      'bot.join',
      'instance.join',
      'okta.groups.update',
    ];
    const catalogueTypes = new Set(Object.values(auditCatalogue).map((entry) => entry.type));
    expect(families.filter((type) => !catalogueTypes.has(type))).toEqual([]);
  });

  it('has a failure variant for every SFTP operation', () => {
    const sftp = Object.keys(auditCatalogue).filter((code) => /^TS\d/.test(code));
    const ok = sftp.filter((code) => code.endsWith('I')).map((code) => code.slice(0, -1));
    const failed = sftp.filter((code) => code.endsWith('E')).map((code) => code.slice(0, -1));
    expect(ok.length).toBeGreaterThan(10);
    expect(failed).toEqual(ok);
  });

  it('finds nothing for unknown codes or inherited names', () => {
    expect(describeAuditCode('T0000X')).toBeUndefined();
    expect(describeAuditCode('toString')).toBeUndefined();
  });
});

describe('formatAuditEvent', () => {
  const time = '2026-11-01T10:00:00.000Z';

  it('renders the message template with the event fields', () => {
    const row = formatAuditEvent({
      event: 'session.join',
      code: 'T2001I',
      time,
      user: 'alice',
      sid: 's-1',
    });
    expect(row).toEqual({
      code: 'T2001I',
      codeDesc: 'User Joined',
      message: 'User [alice] has joined the session [s-1]',
      severity: 'info',
      type: 'session.join',
      user: 'alice',
      time,
    });
  });

  it('reads as English for both kinds of sign-up token (an invite, a reset)', () => {
    const message = (token_type: string) =>
      formatAuditEvent({
        event: 'reset_password_token.create',
        code: 'T6000I',
        time,
        user: 'postern',
        name: 'admin',
        token_type,
      }).message;
    expect(message('invite')).toBe('User [postern] created the invite token for user [admin]');
    expect(message('reset')).toBe('User [postern] created the reset token for user [admin]');
  });

  it('says what a call to the assistant’s model cost', () => {
    const row = formatAuditEvent({
      event: 'assist.completion',
      code: 'T68000I',
      time,
      user: 'alice',
      conversation_id: 'c-1',
      completion_kind: 'chat',
      model: 'gpt-4o-mini',
      total_tokens: 1234,
    });
    expect(row.codeDesc).toBe('Assist Completion');
    expect(row.message).toBe(
      'User [alice] asked the assistant (chat): 1234 tokens of model [gpt-4o-mini]',
    );
  });

  it('takes dotted field names and lists', () => {
    const row = formatAuditEvent({
      event: 'join_token.create',
      code: 'TJT00I',
      time,
      user: 'bob',
      roles: ['Node', 'App'],
    });
    expect(row.message).toBe('User [bob] created a join token with roles [Node, App]');
  });

  it('shows unknown codes as Unknown with the type and code', () => {
    const row = formatAuditEvent({ event: 'thing.happened', code: 'TZZZ9W', time });
    expect(row).toMatchObject({
      codeDesc: 'Unknown',
      message: 'Unknown event: thing.happened (TZZZ9W)',
      severity: 'warning',
      user: '',
    });
  });

  it('cuts query text at 80 characters with an ellipsis', () => {
    const query = `SELECT ${'x, '.repeat(40)}y FROM t`;
    const row = formatAuditEvent({
      event: 'db.session.query',
      code: 'TDB02I',
      time,
      user: 'carol',
      query,
      db_name: 'app',
      db_service: 'pg',
    });
    expect(row.message).toBe(
      `User [carol] has executed query [${query.slice(0, 80)}…] in database [app] on [pg]`,
    );
    expect(truncateQuery('short')).toBe('short');
    expect(truncateQuery('q'.repeat(80))).toBe('q'.repeat(80));
  });
});
