import { useParams } from 'react-router';
import { attemptOf } from '../../lib/attempt';
import { HeadlessView } from './HeadlessView';
import { useHeadless } from './useHeadless';

export function HeadlessPage() {
  const requestId = useParams().requestId ?? '';
  const { request, answer } = useHeadless(requestId);
  return (
    <HeadlessView
      attempt={attemptOf(request)}
      onRetry={() => void request.refetch()}
      pending={answer.isPending ? (answer.variables ?? null) : null}
      error={answer.error instanceof Error ? answer.error.message : null}
      onApprove={() => answer.mutate('accept')}
      onReject={() => answer.mutate('denied')}
      now={Date.now()}
    />
  );
}
