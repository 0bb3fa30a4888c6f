import { ActionIcon, Badge, Box, Button, Group, Menu, Text, Tooltip } from '@mantine/core';
import { isNormalSessionEnd } from '@postern/contracts';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import { readTerminalSettings } from '../../lib/consoleSettings';
import { fontSizeLimits } from './fontSize';
import { useConsole } from './ConsoleContext';
import { isReadOnly, type TerminalTab } from './consoleStore';
import type { ShortcutAction, TerminalEngine } from './terminalEngine';
import { FindBar } from './FindBar';
import { startTerminalSession } from './startTerminalSession';
import { DownloadDialog, UploadDialog } from './transfers/TransferDialogs';
import { TransferPanel } from './transfers/TransferPanel';
import { useFileTransfers } from './transfers/useFileTransfers';

/** One terminal tab: toolbar, find bar, the terminal, its context menu. */
export function TerminalSession({ tab, active }: { tab: TerminalTab; active: boolean }) {
  const { dispatch, fontSize, setFontSize, deps } = useConsole();
  const { ui } = useClientConfig();
  const containerRef = useRef<HTMLDivElement>(null);
  const [engine, setEngine] = useState<TerminalEngine | null>(null);
  const [findOpen, setFindOpen] = useState(false);
  const [menuAt, setMenuAt] = useState<{ x: number; y: number } | null>(null);
  const readOnly = isReadOnly(tab);
  const [transferDialog, setTransferDialog] = useState<'upload' | 'download' | null>(null);
  const endpoint = useMemo(
    () => ({ clusterId: tab.clusterId, serverId: tab.serverId, login: tab.login }),
    [tab.clusterId, tab.serverId, tab.login],
  );
  const transfers = useFileTransfers(endpoint, ui.fileTransferMaxBytes, deps.transfers);
  // Files move as the tab's own login; someone who joined a session has no login of their own there.
  const canTransfer = !tab.joined && tab.serverId !== '' && tab.login !== '';

  // What the session starts with; later changes of these must not reconnect it. The font and
  // scrollback come from Console Settings, the scrollback defaulting to the cluster's.
  const [{ fontFamily, scrollback }] = useState(() => readTerminalSettings(ui.scrollbackLines));
  const startWith = useRef({ tab, fontSize, fontFamily, scrollback, readOnly, deps });
  const shortcuts = useRef<(action: ShortcutAction) => void>(() => undefined);

  useEffect(() => {
    const { tab: first, deps: d, ...options } = startWith.current;
    const ro = options.readOnly;
    let cancelled = false;
    let stop = () => {};
    d.loadEngine(options).then(
      (loaded) => {
        const container = containerRef.current;
        if (cancelled || !container) {
          loaded.dispose();
          return;
        }
        stop = startTerminalSession(loaded, container, {
          tab: first,
          deps: d,
          dispatch,
          readOnly: ro,
          onShortcut: (action) => shortcuts.current(action),
        });
        setEngine(loaded);
      },
      (err: unknown) => {
        if (cancelled) return;
        const message = err instanceof Error ? err.message : String(err);
        dispatch({
          type: 'disconnected',
          id: first.id,
          reason: `the terminal did not load: ${message}`,
        });
      },
    );
    return () => {
      cancelled = true;
      stop();
    };
  }, [dispatch]);

  useEffect(() => {
    engine?.setFontSize(fontSize);
  }, [engine, fontSize]);

  // A tab shown again has its real size now: fit it and give it the keyboard.
  useEffect(() => {
    if (!active || !engine) return;
    engine.fit();
    engine.focus();
  }, [active, engine]);

  const copy = () => {
    const text = engine?.getSelection();
    if (text) void deps.clipboard?.writeText(text).catch(() => undefined);
  };
  const paste = () => {
    if (readOnly || !engine || !deps.clipboard) return;
    deps.clipboard.readText().then(
      (text) => engine.paste(text),
      () => undefined, // permission refused: nothing to paste
    );
  };
  const openFind = () => setFindOpen(true);
  useEffect(() => {
    shortcuts.current = (action) => {
      if (action === 'copy') copy();
      else if (action === 'paste') paste();
      else openFind();
    };
  });

  const fontDown = () => setFontSize(fontSize - 1);
  const fontUp = () => setFontSize(fontSize + 1);

  return (
    <Box style={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}>
      <Group
        role="toolbar"
        aria-label="Terminal tools"
        justify="space-between"
        px="sm"
        py={4}
        gap="xs"
        wrap="nowrap"
        style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
      >
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          {tab.status === 'connecting' && (
            <Text size="sm" c="dimmed" role="status">
              Connecting…
            </Text>
          )}
          {tab.status === 'disconnected' && (
            <Text
              size="sm"
              c={isNormalSessionEnd(tab.reason) ? 'dimmed' : 'red'}
              role="status"
              data-ended={isNormalSessionEnd(tab.reason) ? 'normally' : 'failed'}
            >
              disconnected: {tab.reason}
            </Text>
          )}
          {readOnly && (
            <Badge color="yellow" variant="light" tt="none">
              {tab.mode === 'moderator' ? 'Moderating (read-only)' : 'Observing (read-only)'}
            </Badge>
          )}
          {tab.joined && tab.parties.length > 0 && (
            <Text size="sm" c="dimmed" truncate aria-label="Participants">
              In session: {tab.parties.map((p) => `${p.user} (${p.mode})`).join(', ')}
            </Text>
          )}
        </Group>
        <Group gap={4} wrap="nowrap">
          {canTransfer && (
            <>
              <Button
                variant="subtle"
                size="compact-xs"
                onClick={() => setTransferDialog('upload')}
              >
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
          )}
          <ActionIcon
            variant="subtle"
            aria-label="Decrease font size"
            onClick={fontDown}
            disabled={fontSize <= fontSizeLimits.min}
          >
            A−
          </ActionIcon>
          <Text size="xs" c="dimmed" w={28} ta="center" aria-label="Font size">
            {fontSize}
          </Text>
          <ActionIcon
            variant="subtle"
            aria-label="Increase font size"
            onClick={fontUp}
            disabled={fontSize >= fontSizeLimits.max}
          >
            A+
          </ActionIcon>
          <Tooltip label="Ctrl+Shift+F">
            <Button variant="subtle" size="compact-xs" onClick={openFind}>
              Find
            </Button>
          </Tooltip>
          <Tooltip label="Ctrl+Shift+C">
            <Button variant="subtle" size="compact-xs" onClick={copy}>
              Copy
            </Button>
          </Tooltip>
          {!readOnly && (
            <Tooltip label="Ctrl+Shift+V">
              <Button variant="subtle" size="compact-xs" onClick={paste}>
                Paste
              </Button>
            </Tooltip>
          )}
        </Group>
      </Group>
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
      {findOpen && engine && (
        <FindBar
          engine={engine}
          onClose={() => {
            setFindOpen(false);
            engine.clearFind();
            engine.focus();
          }}
        />
      )}
      <Box style={{ position: 'relative', flex: 1, minHeight: 0 }}>
        <div
          ref={containerRef}
          role="region"
          aria-label="Terminal"
          style={{ position: 'absolute', inset: 0, padding: 4, background: '#1b1b22' }}
          onContextMenu={(event) => {
            event.preventDefault();
            const box = event.currentTarget.getBoundingClientRect();
            setMenuAt({ x: event.clientX - box.left, y: event.clientY - box.top });
          }}
        />
        <Menu
          opened={menuAt !== null}
          onChange={(open) => !open && setMenuAt(null)}
          withinPortal
          // Anchored to a point, not an element: never treat it as scrolled away.
          hideDetached={false}
        >
          <Menu.Target>
            <span
              aria-hidden
              style={{ position: 'absolute', left: menuAt?.x ?? 0, top: menuAt?.y ?? 0 }}
            />
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={copy}>Copy</Menu.Item>
            {!readOnly && <Menu.Item onClick={paste}>Paste</Menu.Item>}
            <Menu.Item onClick={openFind}>Find…</Menu.Item>
            <Menu.Divider />
            <Menu.Item onClick={fontUp} disabled={fontSize >= fontSizeLimits.max}>
              Larger text
            </Menu.Item>
            <Menu.Item onClick={fontDown} disabled={fontSize <= fontSizeLimits.min}>
              Smaller text
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Box>
    </Box>
  );
}
