import { BotsService } from '../identity/bots/bots.service.js';
import { BotsStore } from '../identity/bots/bots.store.js';
import type { TestApp } from './app-harness.testkit.js';

/** The bots' admin service on a test app's storage and clock, as `postern bots` builds it. */
export function botsOf(app: TestApp): BotsService {
  return new BotsService({
    users: app.services.users,
    store: new BotsStore(app.backend),
    audit: app.audit,
    now: () => app.clock.now(),
  });
}
