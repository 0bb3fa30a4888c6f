import type { AuditEntryDraft } from '../entry.js';

/** Users, logins, second factors, tokens, recovery, billing, device trust and certificates. */
export const identityEvents = {
  T1000I: {
    type: 'user.login',
    desc: 'Local Login',
    message: 'Local user [{user}] successfully logged in',
  },
  T1000W: {
    type: 'user.login',
    desc: 'Local Login Failed',
    message: 'Local user [{user}] login failure [{error}]',
  },
  T1001I: {
    type: 'user.login',
    desc: 'SSO Login',
    message: 'SSO user [{user}] successfully logged in',
  },
  T1001W: {
    type: 'user.login',
    desc: 'SSO Login Failed',
    message: 'SSO user login failed [{error}]',
  },
  T1002I: {
    type: 'user.create',
    desc: 'User Created',
    message: 'User [{name}] has been created by [{user}]',
  },
  T1003I: {
    type: 'user.update',
    desc: 'User Updated',
    message: 'User [{name}] has been updated by [{user}]',
  },
  T1004I: {
    type: 'user.delete',
    desc: 'User Deleted',
    message: 'User [{name}] has been deleted by [{user}]',
  },
  T1005I: {
    type: 'user.password_change',
    desc: 'User Password Updated',
    message: 'User [{user}] has changed their password',
  },
  T1006I: {
    type: 'mfa.add',
    desc: 'MFA Device Added',
    message: 'User [{user}] added an MFA device [{mfa_device_name}]',
  },
  T1007I: {
    type: 'mfa.delete',
    desc: 'MFA Device Deleted',
    message: 'User [{user}] removed an MFA device [{mfa_device_name}]',
  },
  T1008I: {
    type: 'recovery_code.generated',
    desc: 'Recovery Codes Generated',
    message: 'New recovery codes were generated for user [{user}]',
  },
  T1009I: {
    type: 'recovery_code.used',
    desc: 'Recovery Code Used',
    message: 'User [{user}] successfully used a recovery code',
  },
  T1009W: {
    type: 'recovery_code.used',
    desc: 'Recovery Code Use Failed',
    message: 'User [{user}] failed an attempt to use a recovery code',
  },
  T3007W: {
    type: 'auth',
    desc: 'Auth Attempt Failed',
    message: 'User [{user}] failed auth attempt: {error}',
  },
  T6000I: {
    type: 'reset_password_token.create',
    desc: 'Invite or Reset Token Created',
    message: 'User [{user}] created the {token_type} token for user [{name}]',
  },
  T6001I: {
    type: 'recovery_token.create',
    desc: 'Recovery Token Created',
    message: 'User [{user}] created a recovery token for user [{name}]',
  },
  T6002I: {
    type: 'privilege_token.create',
    desc: 'Privilege Token Created',
    message: 'Privilege token was created for user [{user}]',
  },
  T8000I: {
    type: 'github.created',
    desc: 'GitHub Auth Connector Created',
    message: 'User [{user}] created GitHub connector [{name}]',
  },
  T8001I: {
    type: 'github.deleted',
    desc: 'GitHub Auth Connector Deleted',
    message: 'User [{user}] deleted GitHub connector [{name}]',
  },
  T8100I: {
    type: 'oidc.created',
    desc: 'OIDC Auth Connector Created',
    message: 'User [{user}] created OIDC connector [{name}]',
  },
  T8101I: {
    type: 'oidc.deleted',
    desc: 'OIDC Auth Connector Deleted',
    message: 'User [{user}] deleted OIDC connector [{name}]',
  },
  T8200I: {
    type: 'saml.created',
    desc: 'SAML Connector Created',
    message: 'User [{user}] created SAML connector [{name}]',
  },
  T8201I: {
    type: 'saml.deleted',
    desc: 'SAML Connector Deleted',
    message: 'User [{user}] deleted SAML connector [{name}]',
  },
  TBL00I: {
    type: 'billing.create_card',
    desc: 'Credit Card Added',
    message: 'User [{user}] has added a credit card',
  },
  TBL01I: {
    type: 'billing.delete_card',
    desc: 'Credit Card Deleted',
    message: 'User [{user}] has deleted a credit card',
  },
  TBL02I: {
    type: 'billing.update_card',
    desc: 'Credit Card Updated',
    message: 'User [{user}] has updated a credit card',
  },
  TBL03I: {
    type: 'billing.update_info',
    desc: 'Billing Information Updated',
    message: 'User [{user}] has updated the billing information',
  },
  TV001I: {
    type: 'device.create',
    desc: 'Device Registered',
    message: 'User [{user}] has registered a device [{device_id}]',
  },
  TV002I: {
    type: 'device.delete',
    desc: 'Device Deleted',
    message: 'User [{user}] has deleted a device [{device_id}]',
  },
  TV003I: {
    type: 'device.token.create',
    desc: 'Device Enroll Token Created',
    message: 'User [{user}] created a device enroll token',
  },
  TV004I: {
    type: 'device.token.spent',
    desc: 'Device Enroll Token Spent',
    message: 'User [{user}] has spent a device enroll token',
  },
  TV005I: {
    type: 'device.enroll',
    desc: 'Device Enrolled',
    message: 'User [{user}] has enrolled device [{device_id}]',
  },
  TV006I: {
    type: 'device.authenticate',
    desc: 'Device Authenticated',
    message: 'User [{user}] has authenticated with device [{device_id}]',
  },
  TV007I: {
    type: 'device.update',
    desc: 'Device Updated',
    message: 'User [{user}] has updated device [{device_id}]',
  },
  TC000I: {
    type: 'cert.create',
    desc: 'Certificate Issued',
    message: 'Certificate of type [{cert_type}] issued for [{user}]',
  },
  // Codes the reference has no equivalent for live in our own TPOS range.
  TPOS010I: {
    type: 'user.logout',
    desc: 'User Logged Out',
    message: 'User [{user}] has logged out',
  },
  TPOS019W: {
    type: 'user.update',
    desc: 'User Update Refused',
    message: 'User [{name}] was not updated by [{user}]: {error}',
  },
  TPOS040W: {
    type: 'github.created',
    desc: 'GitHub Auth Connector Update Refused',
    message: 'User [{user}] was refused saving GitHub connector [{name}]: {error}',
  },
  TPOS041W: {
    type: 'oidc.created',
    desc: 'OIDC Auth Connector Update Refused',
    message: 'User [{user}] was refused saving OIDC connector [{name}]: {error}',
  },
  TPOS042W: {
    type: 'saml.created',
    desc: 'SAML Connector Update Refused',
    message: 'User [{user}] was refused saving SAML connector [{name}]: {error}',
  },
  TPOS016W: {
    type: 'mfa.add',
    desc: 'MFA Device Refused',
    message: 'User [{user}] tried to register a WebAuthn key that is registered already',
  },
  TPOS011I: {
    type: 'user_token.use',
    desc: 'Invite or Reset Token Used',
    message: 'User [{user}] used a {token_type} token',
  },
  TPOS012W: {
    type: 'user.locked',
    desc: 'Account Locked',
    message: 'User [{user}] was locked until {locked_until}: {reason}',
  },
  TPOS013I: {
    type: 'user.unlocked',
    desc: 'Account Unlocked',
    message: 'User [{name}] was unlocked by [{user}]',
  },
  TPOS014I: {
    type: 'headless.create',
    desc: 'Headless Login Requested',
    message: 'A headless login for [{user}] was requested from {client_ip_address}',
  },
  TPOS015I: {
    type: 'headless.approve',
    desc: 'Headless Login Approved',
    message: 'User [{user}] approved a headless login from {client_ip_address}',
  },
  TPOS015W: {
    type: 'headless.deny',
    desc: 'Headless Login Denied',
    message: 'User [{user}] denied a headless login from {client_ip_address}',
  },
} as const satisfies Record<string, AuditEntryDraft>;
