import { Badge, Button, Text } from '@mantine/core';
import { useContext, useMemo, useState } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import { UserContextContext } from '../../app/userContext';
import { useConsole } from './ConsoleContext';
import { isReadOnly, type Party, type TerminalTab } from './consoleStore';
import { useSessionMfaPrompt } from '../../components/SessionMfaDialog';
import { serverTerminalTarget, startTerminalSession } from './startTerminalSession';
import { TerminalPane, type StartTerminal } from './TerminalPane';
import { filesMfaCheck } from './transfers/filesMfaCheck';
import { DownloadDialog, UploadDialog } from './transfers/TransferDialogs';
import { ModeratedTransfers } from './transfers/moderatedTransfers';
import { TransferApprovals, useTransferPrompts } from './transfers/TransferApprovals';
import { TransferPanel } from './transfers/TransferPanel';
import { useFileTransfers, type ApproveFirst } from './transfers/useFileTransfers';

/** One terminal tab of the console: a server's shell, with its participants and file transfers. */
export function TerminalSession({ tab, active }: { tab: TerminalTab; active: boolean }) {
  const { dispatch, fontSize, setFontSize, deps } = useConsole();
  const { ui } = useClientConfig();
  const readOnly = isReadOnly(tab);
  const [transferDialog, setTransferDialog] = useState<'upload' | 'download' | null>(null);
  const endpoint = useMemo(
    () => ({ clusterId: tab.clusterId, serverId: tab.serverId, login: tab.login }),
    [tab.clusterId, tab.serverId, tab.login],
  );
  const mfa = useSessionMfaPrompt();
  // Who is signed in: their own requests from another tab are not theirs to approve.
  const viewer = useContext(UserContextContext)?.userName;
  const checkFiles = useMemo(() => filesMfaCheck(endpoint, mfa.ask), [endpoint, mfa.ask]);
  // One per connection: a reconnect is a new session, with requests of its own.
  const moderated = useMemo(
    () => new ModeratedTransfers(!tab.joined, viewer),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new one for each connection
    [tab.joined, tab.connection],
  );
  const prompts = useTransferPrompts(moderated);
  const sessionModerated = tab.moderated === true;
  const approveFirst = useMemo<ApproveFirst>(
    () => async (ask, signal, waiting) => {
      if (!sessionModerated) return undefined;
      waiting();
      return moderated.approval(ask, signal);
    },
    [sessionModerated, moderated],
  );
  const transfers = useFileTransfers(
    endpoint,
    ui.fileTransferMaxBytes,
    deps.transfers,
    checkFiles,
    approveFirst,
  );
  // Files move as the tab's own login; someone who joined a session has no login of their own there.
  const canTransfer = !tab.joined && tab.serverId !== '' && tab.login !== '';

  // The tab as it opened: a join that learns its server later keeps its socket.
  const start: StartTerminal = (engine, container, onShortcut) =>
    startTerminalSession(engine, container, {
      target: serverTerminalTarget(tab),
      deps,
      readOnly,
      moderator: tab.mode === 'moderator',
      onShortcut,
      moderatedTransfers: moderated,
      events: {
        connected: () => dispatch({ type: 'connected', id: tab.id }),
        resuming: () => dispatch({ type: 'resuming', id: tab.id }),
        session: (session) => dispatch({ type: 'session', id: tab.id, session }),
        disconnected: (reason, proxyGone) =>
          dispatch({ type: 'disconnected', id: tab.id, reason, proxyGone }),
        mfaChallenge: mfa.ask,
      },
    });

  return (
    <TerminalPane
      // A reconnect is a new terminal on a new socket: the pane starts over.
      key={tab.connection}
      status={tab.status}
      reason={tab.reason}
      onReconnect={
        tab.reconnectable ? () => dispatch({ type: 'reconnect', id: tab.id }) : undefined
      }
      active={active}
      readOnly={readOnly}
      moderator={tab.mode === 'moderator'}
      fontSize={fontSize}
      setFontSize={setFontSize}
      deps={deps}
      start={start}
      onLoadFailed={(reason) => dispatch({ type: 'disconnected', id: tab.id, reason })}
      info={
        <>
          {readOnly && (
            <Badge color="yellow" variant="light" tt="none">
              {tab.mode === 'moderator'
                ? 'Moderating (read-only; t ends the session)'
                : 'Observing (read-only)'}
            </Badge>
          )}
          {tab.joined && tab.parties.length > 0 && (
            <Text size="sm" c="dimmed" truncate aria-label="Participants">
              In session: {tab.parties.map(partyText).join(', ')}
            </Text>
          )}
        </>
      }
      actions={
        canTransfer && (
          <>
            <Button variant="subtle" size="compact-xs" onClick={() => setTransferDialog('upload')}>
              Upload files
            </Button>
            <Button
              variant="subtle"
              size="compact-xs"
              onClick={() => setTransferDialog('download')}
            >
              Download file
            </Button>
          </>
        )
      }
    >
      {mfa.dialog}
      <TransferApprovals
        prompts={prompts}
        onDecide={(id, ok) => moderated.decide(id, ok)}
        canDecide={tab.mode !== 'observer'}
        canWithdraw={tab.mode === undefined || tab.mode === 'peer'}
      />
      <TransferPanel
        transfers={transfers.transfers}
        onCancel={transfers.cancel}
        onDismiss={transfers.dismiss}
      />
      <UploadDialog
        opened={transferDialog === 'upload'}
        onClose={() => setTransferDialog(null)}
        onUpload={transfers.upload}
      />
      <DownloadDialog
        opened={transferDialog === 'download'}
        onClose={() => setTransferDialog(null)}
        onDownload={transfers.download}
      />
    </TerminalPane>
  );
}

/** `alice (peer)`, or `alice (peer, connection lost)` while the session waits for her. */
const partyText = (party: Party) =>
  `${party.user} (${party.mode}${party.connectionLost ? ', connection lost' : ''})`;
