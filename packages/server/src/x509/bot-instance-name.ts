/**
 * The bot instance behind an X.509 certificate issued on a bot's certificate (`postern db
 * login`, `postern kube login` run by a bot), carried as a subject alternative name URI so that
 * a `bot_instance` lock reaches it as it reaches the SSH certificate's extension.
 */
const uriScheme = 'postern-bot-instance:';

const instanceIdPattern = /^[0-9a-f-]{36}$/;

/** The alternative name naming the instance, for `SubjectAlternativeNameExtension`. */
export function botInstanceAltName(instanceId: string): { type: 'url'; value: string } {
  return { type: 'url', value: `${uriScheme}${instanceId}` };
}

/** The instance named among a peer certificate's alternative names, if one is there and well formed. */
export function botInstanceOfAltNames(names: readonly string[]): string | undefined {
  const prefix = `URI:${uriScheme}`;
  return names
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length))
    .find((id) => instanceIdPattern.test(id));
}
