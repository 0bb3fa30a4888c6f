/**
 * The audit event catalogue, shared by the server (which emits) and the console (which shows).
 * Code format follows the reference system: T + area digits + number + severity letter
 * (I info, W warning, E error). Features add their entries here as they start emitting them.
 */
export type AuditSeverity = 'info' | 'warning' | 'error';

export interface AuditCatalogueEntry {
  /** The event type, used for filtering (`include=`). Several codes may share one type. */
  type: string;
  /** A short human title for the Type column. */
  desc: string;
}

export const auditCatalogue = {
  T1000I: { type: 'user.login', desc: 'Local Login' },
  T1000W: { type: 'user.login', desc: 'Local Login Failed' },
  T1001I: { type: 'user.login', desc: 'SSO Login' },
  T1001W: { type: 'user.login', desc: 'SSO Login Failed' },
  T1002I: { type: 'user.create', desc: 'User Created' },
  T1003I: { type: 'user.update', desc: 'User Updated' },
  T1004I: { type: 'user.delete', desc: 'User Deleted' },
  T1005I: { type: 'user.password_change', desc: 'User Password Updated' },
  T1006I: { type: 'mfa.add', desc: 'MFA Device Added' },
  T1007I: { type: 'mfa.delete', desc: 'MFA Device Deleted' },
  T1006W: { type: 'session.rejected', desc: 'Session Rejected' },
  T2000I: { type: 'session.start', desc: 'Session Started' },
  T2001I: { type: 'session.join', desc: 'User Joined' },
  T2002I: { type: 'resize', desc: 'Terminal Resize' },
  T2003I: { type: 'session.leave', desc: 'User Disconnected' },
  T2004I: { type: 'session.end', desc: 'Session Ended' },
  T3002I: { type: 'exec', desc: 'Command Execution' },
  T3002E: { type: 'exec', desc: 'Command Execution Failed' },
  T3007W: { type: 'auth', desc: 'Auth Attempt Failed' },
  TC000I: { type: 'cert.create', desc: 'Certificate Issued' },
  TJ002I: { type: 'instance.join', desc: 'Instance Joined' },
  TJ002E: { type: 'instance.join', desc: 'Instance Join Failed' },
  TJT00I: { type: 'join_token.create', desc: 'Join Token Created' },
  TJT02I: { type: 'join_token.delete', desc: 'Join Token Deleted' },
  T6000I: { type: 'reset_password_token.create', desc: 'Invite or Reset Token Created' },
  T6002I: { type: 'privilege_token.create', desc: 'Privilege Token Created' },
  T9000I: { type: 'role.created', desc: 'User Role Created' },
  T9001I: { type: 'role.deleted', desc: 'User Role Deleted' },
  T9002I: { type: 'role.updated', desc: 'User Role Updated' },
  TLK00I: { type: 'lock.created', desc: 'Lock Created' },
  TLK01I: { type: 'lock.deleted', desc: 'Lock Deleted' },
  TDP01I: { type: 'windows.desktop.session.end', desc: 'Windows Desktop Session Ended' },
  TPOS001I: { type: 'postern.start', desc: 'Postern Started' },
  // Codes the reference has no equivalent for live in our own TPOS range.
  TPOS010I: { type: 'user.logout', desc: 'User Logged Out' },
  TPOS011I: { type: 'user_token.use', desc: 'Invite or Reset Token Used' },
  TPOS012W: { type: 'user.locked', desc: 'Account Locked' },
  TPOS013I: { type: 'user.unlocked', desc: 'Account Unlocked' },
  TPOS020I: { type: 'node.create', desc: 'Server Registered' },
  TPOS021I: { type: 'node.delete', desc: 'Server Removed' },
  TPOS022I: { type: 'node.host_key_pinned', desc: 'Server Host Key Pinned' },
  TPOS023E: { type: 'node.host_key_mismatch', desc: 'Server Host Key Mismatch' },
} as const satisfies Record<string, AuditCatalogueEntry>;

export type AuditCode = keyof typeof auditCatalogue;

/** Event types whose events are session recordings' end markers (the recordings list). */
export const sessionEndEventTypes = ['session.end', 'windows.desktop.session.end'] as const;

export function auditSeverity(code: string): AuditSeverity {
  if (code.endsWith('E')) return 'error';
  if (code.endsWith('W')) return 'warning';
  return 'info';
}

export function describeAuditCode(code: string): AuditCatalogueEntry | undefined {
  return (auditCatalogue as Record<string, AuditCatalogueEntry>)[code];
}
