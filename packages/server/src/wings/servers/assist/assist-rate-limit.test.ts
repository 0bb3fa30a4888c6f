import { apiPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { FakeChatModel } from './fake-chat-model.testkit.js';

// Each user's allowance of model requests (assist.rate_limit): a burst, then a rate; a refusal
// says when to try again, costs no model call and writes nothing. The model is a named fake.

const fake = new FakeChatModel(() => ({ text: 'Disk usage' }));
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({
    assist: await fake.startForAssist({ rateLimit: { burst: 2, perSecond: 1 / 30 } }),
  });
});
afterAll(async () => {
  await app?.close();
  await fake.stop();
});

const askTitle = async (user: string) => {
  const headers = await app.signIn(['access'], user);
  return app.server.inject({
    method: 'POST',
    url: apiPaths.assistTitleSummary,
    headers,
    payload: { message: 'which servers are low on disk?' },
  });
};
const caller = (user: string) => ({
  user,
  roleSet: app.services.access.roleSetFor(user, ['access']),
});

describe('the assistant’s allowance of model requests', () => {
  it('allows the burst, then refuses with when to try again, per user, until it refills', async () => {
    expect((await askTitle('ada')).statusCode).toBe(200);
    expect((await askTitle('ada')).statusCode).toBe(200);
    const asked = fake.requests.length;
    const refused = await askTitle('ada');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toBe(
      'you have asked the assistant too often: try again in 30 s (at most 2 requests at once, then 2 a minute)',
    );
    expect(fake.requests.length).toBe(asked);
    expect((await askTitle('bo')).statusCode).toBe(200);
    app.clock.advance(30_000);
    expect((await askTitle('ada')).statusCode).toBe(200);
  });

  it('refuses a chat turn before storing anything, and skips a run’s summary', async () => {
    const assist = app.services.assist;
    const { id } = await assist.create('cy');
    await assist.titleFor('cy', 'one');
    await assist.titleFor('cy', 'two');
    const asked = fake.requests.length;
    await expect(assist.turn(caller('cy'), id, 'hello', () => {})).rejects.toMatchObject({
      code: 'limit_exceeded',
    });
    expect(await assist.messages('cy', id)).toEqual([]);
    expect(await assist.summarize(caller('cy'), id, 'run-1', 'df -h')).toBeUndefined();
    expect(fake.requests.length).toBe(asked);
  });
});
