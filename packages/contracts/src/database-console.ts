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
