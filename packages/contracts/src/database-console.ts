import { z } from 'zod';
import { terminalSizeSchema } from './terminal/request.js';

/**
 * The `params` of the SQL console's WebSocket (the terminal protocol otherwise): the database
 * user and name to open, and the terminal's size.
 */
export const databaseConsoleRequestSchema = z.object({
  db_user: z.string().min(1, 'name a database user').max(256),
  db_name: z.string().min(1, 'name a database').max(256),
  term: terminalSizeSchema,
  /** Joining is not offered here: a console session is its owner's alone. */
  sid: z.string().max(0, 'a SQL console cannot be joined').optional(),
  mode: z.undefined().optional(),
});
export type DatabaseConsoleRequest = z.infer<typeof databaseConsoleRequestSchema>;

/** `postern db login`: the route the certificate is for. */
export const databaseLoginRequestSchema = z.strictObject({
  db_user: z.string().min(1, 'name a database user').max(256),
  /** Empty for a MySQL route with no default database; PostgreSQL always opens one. */
  db_name: z.string().max(256),
  /** A trusted leaf's database (`postern db login --cluster`), through this root's listener. */
  cluster_name: z.string().min(1).max(253).optional(),
});

/** The certificate and key (PEM), the CA that signed the listener's, and where it listens. */
export const databaseLoginResponseSchema = z.object({
  cert: z.string(),
  key: z.string(),
  ca: z.string(),
  expires: z.string(),
  /** `host:port` of the native listener, or '' when this proxy runs none. */
  listener: z.string(),
});
export type DatabaseLoginResponse = z.infer<typeof databaseLoginResponseSchema>;
