import { Anchor, Box, Text } from '@mantine/core';
import type { RecordingInfo } from '@postern/contracts';
import { useMutation, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { useCallback, type ReactNode } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ApiError } from '../../api';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import { AttemptView } from '../../components/AttemptView';
import { MessageCard } from '../../components/MessageCard';
import { useNotify } from '../../components/Notifications';
import { attemptOf } from '../../lib/attempt';
import { downloadBlob } from '../audit/exportAudit';
import type { ChunkQuery } from './playbackTypes';
import { LoadedDesktopRecording } from './desktop/LoadedDesktopRecording';
import { openPlayerTerminal } from './playerTerminal';
import { PlayerView } from './PlayerView';
import {
  fetchCastFile,
  fetchDesktopRecordingInfo,
  fetchRecordingChunk,
  fetchRecordingInfo,
} from './recordingApi';
import { usePlayback } from './usePlayback';

/** Recording types of terminal sessions; `desktop` has a player of its own. */
const terminalTypes = ['ssh', 'k8s'];

/** `/web/cluster/:clusterId/session/:sid?recordingType=ssh&durationMs=N`, full page. */
export function PlayerPage() {
  const { proxyCluster } = useClientConfig();
  const { clusterId = proxyCluster, sid = '' } = useParams();
  const [search] = useSearchParams();
  const recordingType = search.get('recordingType') ?? 'ssh';
  const backHref = routePath('clusterRecordings', { clusterId });
  const durationMs = Number(search.get('durationMs'));
  const props = {
    clusterId,
    sid,
    backHref,
    // The list passes the duration along, so the timeline is right before the info arrives.
    durationMs: Number.isFinite(durationMs) && durationMs > 0 ? durationMs : undefined,
  };

  if (recordingType === 'desktop') return <DesktopRecording {...props} />;
  if (!terminalTypes.includes(recordingType)) {
    const title = `Recordings of type "${recordingType}" cannot be played`;
    return <Notice title={title} backHref={backHref} />;
  }
  return <TerminalRecording {...props} />;
}

interface RecordingProps {
  clusterId: string;
  sid: string;
  backHref: string;
  durationMs: number | undefined;
}

function TerminalRecording(props: RecordingProps) {
  const { clusterId, sid } = props;
  const info = useQuery({
    queryKey: ['recordingInfo', clusterId, sid],
    queryFn: ({ signal }) => fetchRecordingInfo(clusterId, sid, signal),
  });
  return (
    <InfoGate info={info} backHref={props.backHref}>
      {(loaded) => <LoadedRecording {...props} info={loaded} />}
    </InfoGate>
  );
}

function DesktopRecording(props: RecordingProps) {
  const { clusterId, sid } = props;
  const info = useQuery({
    queryKey: ['desktopRecordingInfo', clusterId, sid],
    queryFn: ({ signal }) => fetchDesktopRecordingInfo(clusterId, sid, signal),
  });
  return (
    <InfoGate info={info} backHref={props.backHref}>
      {(loaded) => <LoadedDesktopRecording {...props} info={loaded} />}
    </InfoGate>
  );
}

/** The player once its recording's info is in; until then, why not (or that it is loading). */
function InfoGate<T>({
  info,
  backHref,
  children,
}: {
  info: UseQueryResult<T>;
  backHref: string;
  children: (loaded: T) => ReactNode;
}) {
  const status = info.error instanceof ApiError ? info.error.status : undefined;
  if (status === 404) return <Notice title="Recording not found" backHref={backHref} />;
  if (status === 403) {
    return (
      <Notice title="Access Denied" backHref={backHref}>
        You do not have permission to play this recording.
      </Notice>
    );
  }
  const attempt = attemptOf(info);
  if (attempt.status === 'success') return children(attempt.data);
  return (
    <Box p="md">
      <AttemptView attempt={attempt} onRetry={() => void info.refetch()}>
        {() => null}
      </AttemptView>
    </Box>
  );
}

function LoadedRecording({
  clusterId,
  sid,
  backHref,
  durationMs,
  info,
}: RecordingProps & {
  info: RecordingInfo;
}) {
  const notify = useNotify();
  const fetchChunk = useCallback(
    (query: ChunkQuery, signal: AbortSignal) => fetchRecordingChunk(clusterId, sid, query, signal),
    [clusterId, sid],
  );
  const { state, controls, terminalRef } = usePlayback({
    setup: { durationMs: durationMs ?? info.durationMs, cols: info.cols, rows: info.rows },
    fetchChunk,
    openTerminal: openPlayerTerminal,
  });
  const download = useMutation({
    mutationFn: () => fetchCastFile(clusterId, sid),
    onSuccess: (blob) => downloadBlob(blob, `${sid}.cast`),
    onError: (error) => notify({ title: 'Download failed', message: error.message, color: 'red' }),
  });
  return (
    <PlayerView
      title={info.title}
      sid={sid}
      backHref={backHref}
      incomplete={info.incomplete}
      state={state}
      controls={controls}
      marks={info.marks}
      terminalRef={terminalRef}
      onDownload={() => download.mutate()}
      downloading={download.isPending}
    />
  );
}

function Notice({
  title,
  backHref,
  children,
}: {
  title: string;
  backHref: string;
  children?: string;
}) {
  return (
    <MessageCard title={title}>
      {children && <Text ta="center">{children}</Text>}
      <Anchor component={Link} to={backHref} ta="center">
        Back to Session Recordings
      </Anchor>
    </MessageCard>
  );
}
