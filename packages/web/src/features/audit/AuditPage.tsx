import { auditTypeFamilies } from '@postern/contracts';
import { useCallback, useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import { useUserAcl } from '../../app/userContext';
import { useNotify } from '../../components/Notifications';
import { attemptOf } from '../../lib/attempt';
import { fetchAuditPage } from './auditApi';
import { initialTimeRange, rangeOf } from '../../components/timeRange';
import type { AuditFilter } from './auditRange';
import { AuditView } from './AuditView';
import { downloadBlob, exportRange, type ExportFormat } from './exportAudit';
import { useAuditLog } from './useAuditLog';

function initialFilter(now: Date): AuditFilter {
  return { ...initialTimeRange('7d', now), types: [], search: '' };
}

/** Only the fields the attempt reads: react-query re-renders for the fields a page touches. */
const queryState = (query: { isPending: boolean; isError: boolean; error: unknown }) => ({
  isPending: query.isPending,
  isError: query.isError,
  error: query.error,
});

/** `/web/cluster/:clusterId/audit` */
export function AuditPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const notify = useNotify();
  const mayPlay = useUserAcl().recordedSessions.read;
  // Session events link to the player (terminal sessions: recordingType ssh).
  const recordingHref = useCallback(
    (sid: string) => routePath('player', { clusterId, sid }, { recordingType: 'ssh' }),
    [clusterId],
  );
  const [filter, setFilter] = useState(() => initialFilter(new Date()));
  const [exporting, setExporting] = useState(false);
  // A preset's end is "now" when the filter was chosen, so a search stays one fixed range.
  const search = useMemo(() => {
    const range = rangeOf(filter, new Date());
    return range && { ...range, types: filter.types, search: filter.search };
  }, [filter]);
  const { query, events, hasMore, loadMore } = useAuditLog(clusterId, search);

  const exportEvents = async (format: ExportFormat) => {
    if (!search) return;
    setExporting(true);
    try {
      const blob = await exportRange(
        (startKey) => fetchAuditPage(clusterId, { ...search, startKey }),
        format,
      );
      const day = (date: Date) => date.toISOString().slice(0, 10);
      downloadBlob(blob, `audit-${day(search.from)}-${day(search.to)}.${format}`);
    } catch (error) {
      notify({ title: 'Export failed', message: (error as Error).message, color: 'red' });
    } finally {
      setExporting(false);
    }
  };

  return (
    <AuditView
      filter={filter}
      onFilterChange={setFilter}
      typeFamilies={auditTypeFamilies}
      attempt={search ? attemptOf({ ...queryState(query), data: events }) : undefined}
      onRetry={() => void query.refetch()}
      hasMore={hasMore}
      loadingMore={query.isFetchingNextPage}
      onLoadMore={loadMore}
      onExport={(format) => void exportEvents(format)}
      exporting={exporting}
      recordingHref={mayPlay ? recordingHref : undefined}
    />
  );
}
