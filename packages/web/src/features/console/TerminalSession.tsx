import {
  ActionIcon,
  Badge,
  Box,
  Button,
  Group,
  Menu,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useEffect, useRef, useState, type Dispatch } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import { fontSizeLimits } from './fontSize';
import { useConsole, type ConsoleDeps } from './ConsoleContext';
import { isReadOnly, type ConsoleAction, type TerminalTab } from './consoleStore';
import type { ShortcutAction, TerminalEngine } from './terminalEngine';
import { createTraceparent, OutputBatcher, terminalUrl, TtyClient } from './tty';

const sgr = { dim: '2', red: '31' } as const;

interface StartOptions {
  tab: TerminalTab;
  deps: ConsoleDeps;
  dispatch: Dispatch<ConsoleAction>;
  readOnly: boolean;
  onShortcut: (action: ShortcutAction) => void;
}

/**
 * Wires one terminal to one socket: output (batched per frame, acknowledged once written),
 * keystrokes, sizes, session data and notices. Returns what ends it all: the socket closes with
 * 1000, which the server reads as this party leaving.
 */
export function startTerminalSession(
  engine: TerminalEngine,
  container: HTMLElement,
  { tab, deps, dispatch, readOnly, onShortcut }: StartOptions,
): () => void {
  engine.mount(container);
  const { cols, rows } = engine.size();
  const term = { w: cols, h: rows };
  const url = terminalUrl(
    deps.origin,
    tab.clusterId,
    {
      server_id: tab.serverId,
      login: tab.login,
      term,
      ...(tab.sid ? { sid: tab.sid } : {}),
      ...(tab.mode ? { mode: tab.mode } : {}),
    },
    createTraceparent(),
  );
  const token = deps.token();
  const client = new TtyClient({
    url,
    token: token ?? '',
    createSocket: deps.createSocket,
    readOnly,
    initialSize: term,
  });
  const batcher = new OutputBatcher({ sink: engine, acks: client, schedule: deps.schedule });
  // Lines of our own go through the batcher too, so they land in order with the output.
  const line = (text: string, style: string) =>
    batcher.push(`\r\n\x1b[${style}m${text}\x1b[0m\r\n`, 0);

  client.on('open', () => {
    dispatch({ type: 'connected', id: tab.id });
    if (tab.joined) client.readyToJoin();
  });
  client.on('output', (text, bytes) => batcher.push(text, bytes));
  client.on('session', (session) =>
    dispatch({
      type: 'session',
      id: tab.id,
      session: {
        sid: session.id,
        serverId: session.server_id,
        hostname: session.server_hostname,
        login: session.login,
        parties: session.parties.map((p) => ({ user: p.user, mode: p.mode })),
      },
    }),
  );
  client.on('notice', (text) => line(text, sgr.dim));
  client.on('error', (text) => line(text, sgr.red));
  client.on('resize', (size) => engine.resize({ cols: size.w, rows: size.h }));
  client.on('close', ({ reason }) => {
    line(`disconnected: ${reason}`, sgr.red);
    dispatch({ type: 'disconnected', id: tab.id, reason });
  });
  engine.onData((data) => client.send(data));
  engine.onResize((size) => client.resize({ w: size.cols, h: size.rows }));
  engine.onShortcut(onShortcut);

  if (token) {
    client.connect();
  } else {
    dispatch({ type: 'disconnected', id: tab.id, reason: 'not signed in' });
  }
  return () => {
    client.close();
    batcher.dispose();
    engine.dispose();
  };
}

/** One terminal tab: toolbar, find bar, the terminal, its context menu. */
export function TerminalSession({ tab, active }: { tab: TerminalTab; active: boolean }) {
  const { dispatch, fontSize, setFontSize, deps } = useConsole();
  const { ui } = useClientConfig();
  const containerRef = useRef<HTMLDivElement>(null);
  const [engine, setEngine] = useState<TerminalEngine | null>(null);
  const [findOpen, setFindOpen] = useState(false);
  const [menuAt, setMenuAt] = useState<{ x: number; y: number } | null>(null);
  const readOnly = isReadOnly(tab);

  // What the session starts with; later changes of these must not reconnect it.
  const startWith = useRef({ tab, fontSize, scrollback: ui.scrollbackLines, readOnly, deps });
  const shortcuts = useRef<(action: ShortcutAction) => void>(() => undefined);

  useEffect(() => {
    const { tab: first, fontSize: size, scrollback, readOnly: ro, deps: d } = startWith.current;
    let cancelled = false;
    let stop = () => {};
    d.loadEngine({ fontSize: size, scrollback, readOnly: ro }).then(
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
            <Text size="sm" c="red" role="status">
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

/** Find in the scrollback: Enter for the next match, Shift+Enter the previous, Escape closes. */
function FindBar({ engine, onClose }: { engine: TerminalEngine; onClose: () => void }) {
  const [term, setTerm] = useState('');
  const [missing, setMissing] = useState(false);
  const find = (backwards: boolean) => {
    if (!term) return;
    setMissing(!(backwards ? engine.findPrevious(term) : engine.findNext(term)));
  };
  return (
    <Group
      role="search"
      aria-label="Find in terminal"
      px="sm"
      py={4}
      gap="xs"
      wrap="nowrap"
      style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
    >
      <TextInput
        size="xs"
        aria-label="Find"
        placeholder="Find in scrollback"
        value={term}
        autoFocus
        error={missing ? true : undefined}
        onChange={(e) => {
          setTerm(e.currentTarget.value);
          setMissing(false);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') find(e.shiftKey);
          else if (e.key === 'Escape') onClose();
        }}
        style={{ flex: 1, maxWidth: 320 }}
      />
      {missing && (
        <Text size="xs" c="red">
          No matches
        </Text>
      )}
      <ActionIcon variant="subtle" aria-label="Previous match" onClick={() => find(true)}>
        ↑
      </ActionIcon>
      <ActionIcon variant="subtle" aria-label="Next match" onClick={() => find(false)}>
        ↓
      </ActionIcon>
      <ActionIcon variant="subtle" aria-label="Close find" onClick={onClose}>
        ✕
      </ActionIcon>
    </Group>
  );
}
