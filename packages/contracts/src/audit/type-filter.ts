/**
 * The Audit Log's type filter: every event type Postern emits, grouped by family, each with the
 * name people read. The catalogue (`families/`) also holds codes of the reference system that
 * Postern never emits, so the filter is not derived from it: this list is the one place, and a
 * server test (`modules/audit/catalogue-coverage.test.ts`) fails when it and the event types of the
 * codes the server emits drift apart, either way.
 */
export interface AuditTypeChoice {
  /** The event type sent as `include=`. */
  type: string;
  label: string;
}

export interface AuditTypeFamily {
  family: string;
  types: readonly AuditTypeChoice[];
}

const family = (name: string, types: Record<string, string>): AuditTypeFamily => ({
  family: name,
  types: Object.entries(types).map(([type, label]) => ({ type, label })),
});

export const auditTypeFamilies: readonly AuditTypeFamily[] = [
  family('Sessions', {
    'session.start': 'Session Started',
    'session.end': 'Session Ended',
    'session.join': 'User Joined Session',
    'session.leave': 'User Left Session',
    'session.rejected': 'Session Rejected',
    'session.moderation': 'Session Moderation',
    'session.connection_lost': 'Session Connection Lost',
    'session.resumed': 'Session Resumed',
    'session.file_transfer_request': 'File Transfer Requested',
    'session.file_transfer_request_approve': 'File Transfer Approved',
    'session.file_transfer_request_deny': 'File Transfer Denied',
    'session.file_transfer_request_withdraw': 'File Transfer Request Withdrawn',
    resize: 'Terminal Resized',
    'session.recording.access': 'Recording Accessed',
    'session.recording.failed': 'Recording Failed',
  }),
  family('Commands & Files', {
    exec: 'Command Executed',
    subsystem: 'Subsystem Requested',
    port: 'Port Forwarded',
    scp: 'File Copied (SCP)',
    sftp: 'SFTP Operation',
  }),
  family('Users & Auth', {
    'user.login': 'User Logged In',
    'user.logout': 'User Logged Out',
    'user.create': 'User Created',
    'user.update': 'User Updated',
    'user.delete': 'User Deleted',
    'user.password_change': 'Password Changed',
    auth: 'Auth Attempt Failed',
    'user.locked': 'Account Locked',
    'user.unlocked': 'Account Unlocked',
    'mfa.add': 'MFA Device Added',
    'mfa.delete': 'MFA Device Removed',
    'reset_password_token.create': 'Invite or Reset Link Created',
    'user_token.use': 'Invite or Reset Link Used',
    'privilege_token.create': 'Privilege Token Created',
    'headless.create': 'Headless Login Requested',
    'headless.approve': 'Headless Login Approved',
    'headless.deny': 'Headless Login Denied',
    'cert.create': 'Certificate Issued',
  }),
  family('Assist', {
    'assist.completion': 'Assist Completion',
  }),
  family('Bots', {
    'bot.create': 'Bot Created',
    'bot.update': 'Bot Updated',
    'bot.delete': 'Bot Deleted',
    'bot.token.create': 'Bot Join Token Created',
    'bot.join': 'Bot Joined',
    'renewable_certificate.generation_mismatch': 'Bot Certificate Generation Mismatch',
  }),
  family('Roles', {
    'role.created': 'Role Created',
    'role.updated': 'Role Updated',
    'role.deleted': 'Role Deleted',
  }),
  family('Auth Connectors', {
    'github.created': 'GitHub Connector Created',
    'github.deleted': 'GitHub Connector Deleted',
    'oidc.created': 'OIDC Connector Created',
    'oidc.deleted': 'OIDC Connector Deleted',
    'saml.created': 'SAML Connector Created',
    'saml.deleted': 'SAML Connector Deleted',
    'login_rule.create': 'Login Rule Created',
    'login_rule.delete': 'Login Rule Deleted',
  }),
  family('Access Requests', {
    'access_request.create': 'Access Request Created',
    'access_request.update': 'Access Request Updated',
    'access_request.review': 'Access Request Reviewed',
    'access_request.delete': 'Access Request Deleted',
    'access_request.search': 'Resource Access Search',
  }),
  family('Integrations', {
    'integration.create': 'Integration Created',
    'integration.update': 'Integration Updated',
    'integration.delete': 'Integration Deleted',
    'integration.delivery.failed': 'Notification Failed',
  }),
  family('Locks', {
    'lock.created': 'Lock Created',
    'lock.deleted': 'Lock Deleted',
  }),
  family('Cluster Alerts', {
    'cluster_alert.create': 'Cluster Alert Created',
    'cluster_alert.delete': 'Cluster Alert Deleted',
  }),
  family('Trusted Clusters', {
    'trusted_cluster.create': 'Trusted Cluster Created',
    'trusted_cluster.delete': 'Trusted Cluster Deleted',
    'trusted_cluster.ssh.start': 'SSH to a Leaf Cluster Started',
    'trusted_cluster.ssh.end': 'SSH to a Leaf Cluster Ended',
    'trusted_cluster.tunnel.start': 'Tunnel to a Leaf Cluster Started',
    'trusted_cluster.tunnel.end': 'Tunnel to a Leaf Cluster Ended',
  }),
  family('Servers & Agents', {
    'node.create': 'Server Registered',
    'node.delete': 'Server Removed',
    'node.host_key_pinned': 'Server Host Key Pinned',
    'node.host_key_mismatch': 'Server Host Key Mismatch',
    'join_token.create': 'Join Token Created',
    'join_token.delete': 'Join Token Deleted',
    'instance.join': 'Agent Joined',
  }),
  family('Applications', {
    'app.session.start': 'App Session Started',
    'app.session.chunk': 'App Session Requests',
    'app.session.end': 'App Session Ended',
    'app.create': 'Application Created',
    'app.update': 'Application Updated',
    'app.delete': 'Application Deleted',
  }),
  family('Databases', {
    'db.session.start': 'Database Session Started',
    'db.session.end': 'Database Session Ended',
    'db.session.query': 'Database Query',
    'db.session.postgres.statements.parse': 'PostgreSQL Statement Parse',
    'db.session.postgres.statements.bind': 'PostgreSQL Statement Bind',
    'db.session.postgres.statements.execute': 'PostgreSQL Statement Execute',
    'db.session.postgres.function': 'PostgreSQL Function Call',
    'db.session.query.failed': 'Database Query Failed',
    'db.session.mysql.statements.prepare': 'MySQL Statement Prepare',
    'db.session.mysql.statements.execute': 'MySQL Statement Execute',
    'db.session.mysql.statements.send_long_data': 'MySQL Statement Send Long Data',
    'db.session.mysql.statements.close': 'MySQL Statement Close',
    'db.session.mysql.statements.reset': 'MySQL Statement Reset',
    'db.session.mysql.statements.fetch': 'MySQL Statement Fetch',
    'db.session.mysql.init_db': 'MySQL Change Database',
    'db.session.mysql.create_db': 'MySQL Create Database',
    'db.session.mysql.drop_db': 'MySQL Drop Database',
    'db.session.mysql.shut_down': 'MySQL Shut Down',
    'db.session.mysql.process_kill': 'MySQL Kill Process',
    'db.session.mysql.debug': 'MySQL Debug',
    'db.session.mysql.refresh': 'MySQL Refresh',
    'db.create': 'Database Created',
    'db.update': 'Database Updated',
    'db.delete': 'Database Deleted',
  }),
  family('Desktops', {
    'windows.desktop.session.start': 'Desktop Session Started',
    'windows.desktop.session.end': 'Desktop Session Ended',
    'desktop.clipboard.send': 'Clipboard Data Sent',
    'desktop.clipboard.receive': 'Clipboard Data Received',
    'windows.desktop.create': 'Desktop Created',
    'windows.desktop.update': 'Desktop Updated',
    'windows.desktop.delete': 'Desktop Deleted',
  }),
  family('Kubernetes', {
    'kube.request': 'Kubernetes Request',
    'kube.create': 'Kubernetes Cluster Created',
    'kube.update': 'Kubernetes Cluster Updated',
    'kube.delete': 'Kubernetes Cluster Deleted',
  }),
  family('Cluster', {
    'postern.start': 'Postern Started',
    'audit.degraded': 'Audit Log Degraded',
    'storage.disk_usage_high': 'Recordings Volume Nearly Full',
  }),
];
