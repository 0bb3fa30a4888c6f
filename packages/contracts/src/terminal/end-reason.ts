/**
 * Why a terminal session ended, as its parties read it (the `c` frame's reason, and the
 * `session.end` event's `reason`). The server writes these and the console tells a normal end
 * (the program exited 0, or everyone left) from a failure by them, so both share them here.
 */
export const sessionEndReasons = {
  exited: (code: number | string) => `exited with code ${code}`,
  signalled: (signal: string) => `exited on signal ${signal}`,
  allLeft: 'all participants left',
  /** The node missed three keepalives in a row (ssh.keepalive_interval). */
  serverUnresponsive: 'the server stopped answering',
  /** The proxy received SIGTERM and ends every session before it exits. */
  shutdown: 'the proxy is shutting down',
  /** Access the session relied on (the login, the server, the join) was taken away. */
  accessRemoved: (login: string, hostname: string) => `access to ${login}@${hostname} was removed`,
  /** A moderated session whose last required moderator left (on_leave: terminate). */
  moderatorLeft: 'the last required moderator left the session',
  /** A moderator ended it (the `t` key, or End Session). */
  moderatorEnded: (user: string) => `terminated by moderator ${user}`,
} as const;

/** An end that is no error: shown in a neutral colour; anything else stays red. */
export function isNormalSessionEnd(reason: string): boolean {
  return reason === sessionEndReasons.exited(0) || reason === sessionEndReasons.allLeft;
}
