import { rm } from 'node:fs/promises';
import { startPostern } from './postern-process.js';

/** One shared server for the browser specs; specs that test the process itself start their own. */
export default async function globalSetup() {
  const postern = await startPostern();
  process.env.POSTERN_E2E_URL = postern.url;
  process.env.POSTERN_E2E_DATA_DIR = postern.dataDir;
  return async () => {
    await postern.stop();
    await rm(postern.dataDir, { recursive: true, force: true });
  };
}
