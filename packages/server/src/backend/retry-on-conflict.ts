import { AlreadyExistsError, CompareFailedError, NotFoundError } from './types.js';

/**
 * A read-modify-write with conditional writes loses to a concurrent writer now and then; a
 * fresh read and retry settles it. `attempt` reads, changes and writes over the revision read
 * (or creates when there was nothing); after five lost races the last error stands.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const lostRace =
        error instanceof CompareFailedError ||
        error instanceof NotFoundError ||
        error instanceof AlreadyExistsError;
      if (!lostRace || tries >= 5) throw error;
    }
  }
}
