import { Button, Group, Stack, Textarea, Title } from '@mantine/core';
import type { ReviewVerdict } from '@postern/contracts';
import { useState } from 'react';
import { FailureAlert } from '../../components/FailureAlert';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Approve or deny, with a comment; the server's refusal stays on screen. */
export function ReviewForm({
  onReview,
}: {
  onReview: (state: ReviewVerdict, reason: string) => Promise<void>;
}) {
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState<ReviewVerdict>();
  const [error, setError] = useState<string>();
  const send = async (state: ReviewVerdict) => {
    setBusy(state);
    setError(undefined);
    try {
      await onReview(state, comment.trim());
      setComment('');
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <Stack gap="sm" component="section" aria-labelledby="review-title">
      <Title order={3} id="review-title">
        Your review
      </Title>
      <Textarea
        label="Comment"
        value={comment}
        onChange={(e) => setComment(e.currentTarget.value)}
        rows={2}
        maxLength={4096}
      />
      {error && <FailureAlert title="Could not submit the review" message={error} />}
      <Group>
        <Button
          color="green"
          loading={busy === 'APPROVED'}
          disabled={busy !== undefined}
          onClick={() => void send('APPROVED')}
        >
          Approve
        </Button>
        <Button
          color="red"
          variant="light"
          loading={busy === 'DENIED'}
          disabled={busy !== undefined}
          onClick={() => void send('DENIED')}
        >
          Deny
        </Button>
      </Group>
    </Stack>
  );
}
