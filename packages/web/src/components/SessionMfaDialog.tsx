import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { MfaChallenge, SessionMfaResponse, WebauthnAssertion } from '@postern/contracts';
import { useCallback, useState, type FormEvent, type ReactNode } from 'react';
import { CodeInput, MfaMethodRadio } from './secondFactorForms';
import { browserWebauthn, getAssertion, type WebauthnClient } from '../lib/webauthn';

type Method = 'webauthn' | 'otp';

/** How a per-session MFA challenge is answered, or given up (the session is not opened). */
export interface MfaReply {
  answer: (response: SessionMfaResponse) => void;
  cancel: () => void;
}

interface Props {
  challenge: MfaChallenge;
  reply: MfaReply;
  webauthn?: WebauthnClient;
}

/**
 * The per-session MFA check (role option require_session_mfa) asked for before a session starts
 * (a terminal, an application launch): a tap of a registered key, or a code from an
 * authenticator app when the user has one. Cancelling gives the session up.
 */
export function SessionMfaDialog({ challenge, reply, webauthn = browserWebauthn }: Props) {
  const methods: Method[] = [
    ...(challenge.webauthn_challenge ? (['webauthn'] as const) : []),
    ...(challenge.totp_challenge ? (['otp'] as const) : []),
  ];
  const [method, setMethod] = useState<Method>(methods[0] ?? 'otp');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    if (method === 'otp') {
      if (!/^\d{6,8}$/.test(code.trim())) return setError('Enter the 6-digit code from your app');
      return reply.answer({ totp_code: code.trim() });
    }
    setBusy(true);
    try {
      const assertion = await getAssertion(challenge.webauthn_challenge?.publicKey, webauthn);
      reply.answer({ webauthn_response: assertion as unknown as WebauthnAssertion });
    } catch (err) {
      // The browser's prompt was dismissed: the challenge still stands, so the user may retry.
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };

  return (
    <Modal opened onClose={reply.cancel} title="Verify it is you" centered>
      <form onSubmit={(event) => void submit(event)} noValidate aria-label="Session MFA check">
        <Stack gap="sm">
          <Text size="sm">
            Your roles require a fresh two-factor check for each session. It starts once you answer
            it.
          </Text>
          <MfaMethodRadio methods={methods} value={method} onChange={setMethod} />
          {method === 'otp' ? (
            <CodeInput value={code} onChange={setCode} error={error} />
          ) : (
            <>
              <Text size="sm" c="dimmed">
                Your browser asks for your hardware key or passkey.
              </Text>
              {error && (
                <Text size="sm" c="red" role="alert">
                  {error}
                </Text>
              )}
            </>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={reply.cancel}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Verify
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * An MFA prompt: `ask` shows the dialog for a challenge (a terminal session's `mfaChallenge`
 * event), `dialog` is what to render: nothing until asked, and again nothing once answered or
 * cancelled.
 */
export function useSessionMfaPrompt(): {
  ask: (challenge: MfaChallenge, reply: MfaReply) => void;
  dialog: ReactNode;
} {
  const [pending, setPending] = useState<{ challenge: MfaChallenge; reply: MfaReply }>();
  const ask = useCallback((challenge: MfaChallenge, reply: MfaReply) => {
    const done =
      <A extends unknown[]>(then: (...args: A) => void) =>
      (...args: A) => {
        setPending(undefined);
        then(...args);
      };
    setPending({ challenge, reply: { answer: done(reply.answer), cancel: done(reply.cancel) } });
  }, []);
  const dialog = pending ? <SessionMfaDialog {...pending} /> : null;
  return { ask, dialog };
}
