import type { DesktopRecordingInfo } from '@postern/contracts';
import { DesktopPlayerView } from './DesktopPlayerView';
import { useDesktopPlayback } from './useDesktopPlayback';

interface Props {
  clusterId: string;
  sid: string;
  backHref: string;
  /** From the list's link; the info's when absent. */
  durationMs: number | undefined;
  info: DesktopRecordingInfo;
}

/** A desktop recording whose info is in: the player on its playback socket. */
export function LoadedDesktopRecording({ clusterId, sid, backHref, durationMs, info }: Props) {
  const { state, controls, canvasRef } = useDesktopPlayback({
    clusterId,
    sid,
    durationMs: durationMs ?? info.durationMs,
  });
  return (
    <DesktopPlayerView
      title={info.desktopName ? `Desktop ${info.desktopName}` : 'Desktop session'}
      sid={sid}
      backHref={backHref}
      incomplete={info.incomplete}
      width={info.width}
      height={info.height}
      state={state}
      controls={controls}
      canvasRef={canvasRef}
    />
  );
}
