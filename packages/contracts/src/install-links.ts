import { z } from 'zod';
import { appNameSchema, appUriSchema } from './apps.js';
import { databaseNameSchema, databaseTlsModes } from './databases.js';
import { desktopNameSchema } from './desktops.js';

/**
 * The queries of the install links (`/scripts/:token/install-app.sh?name=&uri=`, and the
 * database's and desktop's): the server checks them before it writes a script, and Enroll New
 * Resource checks its form with the same rules, so a link the console builds is one the server
 * takes. Every value ends up in a bash script and a systemd unit, so a uri holds only URL
 * characters.
 */

/** Characters that need no quoting anywhere the script or systemd puts them. */
const urlCharacters = /^[\w.~:/?#[\]@!$&()*+,;=%-]+$/;

/** A uri schema that also refuses anything but URL characters (no quotes, spaces, backslashes). */
const urlOnly = <S extends z.ZodType<string>>(schema: S) =>
  schema.refine((uri) => urlCharacters.test(uri), {
    message: 'only URL characters (no quotes, spaces or backslashes)',
  });

/** `?name=grafana&uri=http://localhost:3000`: the app resource's rules, in URL characters. */
export const installAppQuerySchema = z.object({
  name: appNameSchema,
  uri: urlOnly(appUriSchema),
});

const databaseExpected = 'expected postgres://host:port or mysql://host:port';

/**
 * Why `uri` is not what `postern agent --db name=uri` takes (agent/database-flags.ts), or
 * undefined: a postgres(ql) or mysql scheme, a host, an optional port, and only libpq's
 * `sslmode` and `sslrootcert` (an absolute path on the agent's host). A user or password is
 * refused: Postern signs in with certificates, and a link must not carry a secret.
 */
function databaseUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return databaseExpected;
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!['postgres', 'postgresql', 'mysql'].includes(scheme) || !url.hostname)
    return databaseExpected;
  if (url.username || url.password) {
    return 'no user or password in the uri: Postern signs in to the database with certificates';
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash) {
    return `${databaseExpected}, with only sslmode and sslrootcert after ?`;
  }
  for (const key of url.searchParams.keys()) {
    if (key !== 'sslmode' && key !== 'sslrootcert') {
      return `unknown parameter ${key}: only sslmode and sslrootcert`;
    }
  }
  const mode = url.searchParams.get('sslmode');
  if (mode !== null && !(databaseTlsModes as readonly string[]).includes(mode)) {
    return `sslmode is one of ${databaseTlsModes.join(', ')}`;
  }
  const caFile = url.searchParams.get('sslrootcert');
  if (caFile !== null && !caFile.startsWith('/')) {
    return 'sslrootcert is an absolute path on the agent host';
  }
  return undefined;
}

/**
 * `?name=orders&uri=postgres://db1.internal:5432?sslmode=verify-full`: the database resource's
 * name and what `--db` takes, in characters that need no quoting anywhere the script or
 * systemd puts them.
 */
export const installDatabaseQuerySchema = z.object({
  name: databaseNameSchema,
  uri: urlOnly(z.string().max(1024)).superRefine((uri, ctx) => {
    const problem = databaseUriProblem(uri);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
});

const desktopExpected = 'expected vnc://host:port';

/**
 * Why `uri` is not what `postern agent --desktop name=uri` takes (agent/desktop-flags.ts), or
 * undefined: vnc://host with an optional port, and only `password_file` (an absolute path on the
 * agent's host). A password in the link itself is refused: a link must not carry a secret.
 */
function desktopUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return desktopExpected;
  }
  if (url.protocol !== 'vnc:' || !url.hostname) return desktopExpected;
  if (url.username || url.password) {
    return 'no password in the uri: name a password_file on the desktop host';
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash) {
    return `${desktopExpected}, with only password_file after ?`;
  }
  for (const key of url.searchParams.keys()) {
    if (key !== 'password_file') return `unknown parameter ${key}: only password_file`;
  }
  const file = url.searchParams.get('password_file');
  if (file !== null && !file.startsWith('/')) {
    return 'password_file is an absolute path on the desktop host';
  }
  return undefined;
}

/** `?name=build&uri=vnc://localhost:5901?password_file=/etc/postern/build.vncpass`. */
export const installDesktopQuerySchema = z.object({
  name: desktopNameSchema,
  uri: urlOnly(z.string().max(1024)).superRefine((uri, ctx) => {
    const problem = desktopUriProblem(uri);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
});
