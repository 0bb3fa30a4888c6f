import type { MfaChallenge } from '@postern/contracts';
import { describe, expect, it, vi } from 'vitest';
import type { MfaReply } from '../../../components/SessionMfaDialog';
import { filesMfaCancelledMessage, filesMfaCheck, type FilesMfaApi } from './filesMfaCheck';

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
