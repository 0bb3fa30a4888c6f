import { useState } from 'react';
import { Navigate, useMatch, useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath, routeTable } from '../../app/routes';
import { useAppNavigation } from '../../app/useAppNavigation';
import { useUserToken } from './useUserToken';
import { UserTokenView, type PasswordChoice, type UserTokenKind } from './UserTokenView';

const routes = {
  invite: { start: 'userInvite', next: 'userInviteContinue' },
  reset: { start: 'userReset', next: 'userResetContinue' },
} as const;

/**
 * `/web/invite/:tokenId` and `/web/reset/:tokenId`, each with `/continue` for the second step.
 * Both paths render this one component (the parent route), so the password chosen on the first
 * step stays in memory only: never in the URL, history state or storage. Opening `/continue`
 * directly starts again at the first step.
 */
export function UserTokenPage({ kind }: { kind: UserTokenKind }) {
  const { auth } = useClientConfig();
  const tokenId = useParams().tokenId ?? '';
  const onContinue = useMatch(routeTable[routes[kind].next].path) !== null;
  const navigation = useAppNavigation();
  const [choice, setChoice] = useState<PasswordChoice>();
  const { load, retry, attempt, complete, clearError } = useUserToken(tokenId);

  const startPath = routePath(routes[kind].start, { tokenId });
  if (onContinue && !choice) return <Navigate to={startPath} replace />;

  return (
    <UserTokenView
      kind={kind}
      auth={auth}
      load={load}
      onRetry={retry}
      step={onContinue ? 'continue' : 'password'}
      choice={choice}
      onChoose={(next) => {
        setChoice(next);
        clearError();
        navigation.push(routePath(routes[kind].next, { tokenId }));
      }}
      onBack={() => {
        clearError();
        navigation.push(startPath);
      }}
      attempt={attempt}
      onSubmit={(password, credential) => void complete({ password, credential })}
    />
  );
}
