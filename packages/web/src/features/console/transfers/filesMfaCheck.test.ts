import type { MfaChallenge } from '@postern/contracts';
import { describe, expect, it, vi } from 'vitest';
import type { MfaReply } from '../../../components/SessionMfaDialog';
import {
  filesMfaCancelledMessage,
  filesMfaCheck,
  sharedCheck,
  type FilesMfaApi,
} from './filesMfaCheck';

const endpoint = { clusterId: 'root', serverId: 'node-1', login: 'root' };
const challenge: MfaChallenge = { totp_challenge: true };

function calls(required: boolean): FilesMfaApi {
  return {
    required: vi.fn(async () => required),
    challenge: vi.fn(async () => challenge),
    verify: vi.fn(async () => undefined),
  };
}

describe('filesMfaCheck', () => {
  it('asks nothing when the roles do not want a check', async () => {
    const api = calls(false);
    const ask = vi.fn();
    await filesMfaCheck(endpoint, ask, api)();
    expect(api.required).toHaveBeenCalledWith('root', 'node-1', 'root');
    expect(ask).not.toHaveBeenCalled();
    expect(api.challenge).not.toHaveBeenCalled();
  });

  it("asks the user for the server's challenge and hands the answer to verify", async () => {
    const api = calls(true);
    const ask = vi.fn((_challenge: MfaChallenge, reply: MfaReply) =>
      reply.answer({ totp_code: '123456' }),
    );
    await filesMfaCheck(endpoint, ask, api)();
    expect(api.challenge).toHaveBeenCalledWith('files:node-1');
    expect(ask).toHaveBeenCalledWith(challenge, expect.anything());
    expect(api.verify).toHaveBeenCalledWith('files:node-1', { totp_code: '123456' });
  });

  it('rejects when the user cancels, and verifies nothing', async () => {
    const api = calls(true);
    const ask = (_challenge: MfaChallenge, reply: MfaReply) => reply.cancel();
    await expect(filesMfaCheck(endpoint, ask, api)()).rejects.toThrow(filesMfaCancelledMessage);
    expect(api.verify).not.toHaveBeenCalled();
  });
});

describe('sharedCheck', () => {
  it('asks once for transfers started together, and again once the grant may have lapsed', async () => {
    let clock = 1_000_000;
    const check = vi.fn(async () => {});
    const shared = sharedCheck(check, () => clock);
    await Promise.all([shared(), shared()]);
    expect(check).toHaveBeenCalledTimes(1);
    clock += 40_000; // well inside the minute: the same answer serves
    await shared();
    expect(check).toHaveBeenCalledTimes(1);
    clock += 10_000; // 50 s after it passed: too close to its end to start on it
    await shared();
    expect(check).toHaveBeenCalledTimes(2);
  });

  it('shares a cancelled check’s failure with every transfer of the batch', async () => {
    const check = vi.fn(() => Promise.reject(new Error('The MFA check was cancelled')));
    const shared = sharedCheck(check, () => 0);
    await expect(shared()).rejects.toThrow('cancelled');
    await expect(shared()).rejects.toThrow('cancelled');
    expect(check).toHaveBeenCalledTimes(1);
  });
});
