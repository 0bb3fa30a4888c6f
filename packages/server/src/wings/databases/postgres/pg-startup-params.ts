/**
 * Startup parameters a client may pass on to the database. Anything that could change who the
 * session runs as after the proxy has checked the route (`options=-c role=…`,
 * `session_authorization`, a replication connection) is refused, as is anything unknown: a
 * setting a client needs can still be made with SET once connected, where it is audited.
 */
const passedOn = new Set([
  'user',
  'database',
  'application_name',
  'fallback_application_name',
  'client_encoding',
  'datestyle',
  'timezone',
  'extra_float_digits',
  'intervalstyle',
  'search_path',
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
  'standard_conforming_strings',
]);

/** `options` may carry only `-c name=value` settings of the names above. */
const optionSetting = /^(?:-c\s*|--)([a-z_]+)=\S+$/i;

/** Why a startup parameter is refused, or undefined when all may pass. */
export function refusedStartupParameter(params: ReadonlyMap<string, string>): string | undefined {
  for (const [name, value] of params) {
    if (name === 'options') {
      const refused = refusedOption(value);
      if (refused) return refused;
      continue;
    }
    if (name === 'replication') {
      if (/^(false|off|no|0)$/i.test(value)) continue;
      return 'replication connections are not allowed through Postern';
    }
    if (!passedOn.has(name.toLowerCase())) {
      return `the startup parameter "${name}" is not allowed through Postern: use SET once connected`;
    }
  }
  return undefined;
}

function refusedOption(options: string): string | undefined {
  const words = options.match(/(?:-c\s*)?\S+/g) ?? [];
  for (const word of words) {
    const setting = optionSetting.exec(word);
    const name = setting?.[1]?.toLowerCase();
    if (!name || name === 'user' || name === 'database' || !passedOn.has(name)) {
      return `the startup option "${word}" is not allowed through Postern`;
    }
  }
  return undefined;
}
