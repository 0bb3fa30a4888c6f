import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import { attemptOf } from '../../lib/attempt';
import { SessionsView } from './SessionsView';
import { useSessions } from './useSessions';

/** `/web/cluster/:clusterId/sessions`, polled every 5 s. */
export function SessionsPage() {
  const { proxyCluster, canJoinSessions } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const query = useSessions(clusterId);
  return (
    <SessionsView
      attempt={attemptOf(query)}
      onRetry={() => void query.refetch()}
      // Joining needs the proxy to see the session's stream (reference §2.5: canJoinSessions).
      joinHref={
        canJoinSessions
          ? (session, mode) =>
              routePath('consoleSession', { clusterId, sid: session.sid }, { mode })
          : undefined
      }
    />
  );
}
