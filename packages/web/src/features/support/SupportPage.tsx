import { attemptOf } from '../../lib/attempt';
import { supportLinks } from './supportLinks';
import { SupportView } from './SupportView';
import { useSupport } from './useSupport';

export function SupportPage() {
  const query = useSupport();
  return (
    <SupportView
      attempt={attemptOf(query)}
      onRetry={() => void query.refetch()}
      links={supportLinks}
    />
  );
}
