/**
 * Every localStorage key the console uses, in one place (spec §9: keys prefixed `grv_teleport_`).
 * Clearing storage on logout must keep the theme and assist keys (spec §4).
 */
export const storageKeys = {
  token: 'grv_teleport_token',
  tokenRenew: 'grv_teleport_token_renew',
  lastActive: 'grv_teleport_last_active',
  discover: 'grv_teleport_discover',
  uiTheme: 'grv_teleport_ui_theme',
  showAssistPopup: 'grv_teleport_show_assist_popup',
  assistViewMode: 'grv_teleport_assist_view_mode',
  /** The second factor of the last successful sign-in on this browser ('otp' | 'webauthn'). */
  lastMfaMethod: 'grv_teleport_last_mfa_method',
  /** Console settings (/web/settings); the theme is `uiTheme`. */
  terminalFontSize: 'grv_teleport_terminal_font_size',
  terminalFontFamily: 'grv_teleport_terminal_font_family',
  terminalScrollback: 'grv_teleport_terminal_scrollback',
  dateFormat: 'grv_teleport_date_format',
  /**
   * Why the last session ended, when a lock ended it: written by the session lifecycle after its
   * clean-up, shown by the sign-in page, removed by the next sign-in.
   */
  lockedNotice: 'grv_teleport_locked_notice',
  /** The cluster alerts this browser closed (their names). */
  dismissedAlerts: 'grv_teleport_dismissed_alerts',
  /** In sessionStorage: the resources picked for the next access request (the cart). */
  accessRequestCart: 'grv_teleport_access_request_cart',
  /** Not prefixed: the opt-in switch for the telemetry module (spec §2). */
  enableTelemetry: 'enable-telemetry',
} as const;

/**
 * Keys that survive a logout's storage clean-up: the theme and the assist settings (spec §4),
 * and, beyond the spec, the other preferences of this browser (console settings, the second
 * factor to offer first), which are no more tied to a session than the theme is, and the lock
 * notice, which another tab's logout must not wipe before the sign-in page shows it.
 */
export const keysKeptOnLogout: readonly string[] = [
  storageKeys.uiTheme,
  storageKeys.showAssistPopup,
  storageKeys.assistViewMode,
  storageKeys.lastMfaMethod,
  storageKeys.terminalFontSize,
  storageKeys.terminalFontFamily,
  storageKeys.terminalScrollback,
  storageKeys.dateFormat,
  storageKeys.lockedNotice,
  storageKeys.dismissedAlerts,
];
