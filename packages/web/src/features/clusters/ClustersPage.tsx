import { attemptOf } from '../../lib/attempt';
import { ClustersView } from './ClustersView';
import { useClusters } from './useClusters';

export function ClustersPage() {
  const query = useClusters();
  return <ClustersView attempt={attemptOf(query)} onRetry={() => void query.refetch()} />;
}
