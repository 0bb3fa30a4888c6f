/** A problem in the configuration or flags: reported as one line, without a stack trace. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
