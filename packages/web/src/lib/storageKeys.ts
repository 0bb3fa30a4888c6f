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
  /** Not prefixed: the opt-in switch for the telemetry module (spec §2). */
  enableTelemetry: 'enable-telemetry',
} as const;

/** Keys that survive a logout's storage clean-up (spec §4): the theme and the assist settings. */
export const keysKeptOnLogout: readonly string[] = [
  storageKeys.uiTheme,
  storageKeys.showAssistPopup,
  storageKeys.assistViewMode,
];
