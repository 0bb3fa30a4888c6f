import { ActionIcon, Box, Button, Group, Menu, Text, Tooltip } from '@mantine/core';
import { isNormalSessionEnd } from '@postern/contracts';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import { readTerminalSettings } from '../../lib/consoleSettings';
import type { TerminalStatus } from './consoleStore';
import { FindBar } from './FindBar';
import { fontSizeLimits } from './fontSize';
import type { TerminalDeps } from './terminalDeps';
import type { ShortcutAction, TerminalEngine } from './terminalEngine';

/** Connects a loaded terminal to its session; returns what ends it. */
export type StartTerminal = (
  engine: TerminalEngine,
  container: HTMLElement,
  onShortcut: (action: ShortcutAction) => void,
) => () => void;

interface Props {
  status: TerminalStatus;
  /** Why the session is over, once it is. */
  reason: string;
  /** Shown now: it gets its real size and the keyboard. */
  active: boolean;
  /** Observers: no input, no Paste. */
  readOnly: boolean;
  /** Joined as a moderator: read-only, but `t` ends the session. */
  moderator?: boolean;
  fontSize: number;
  setFontSize: (px: number) => void;
  deps: Pick<TerminalDeps, 'loadEngine' | 'clipboard'>;
  /** Called once, when the terminal has loaded; later values are not read. */
  start: StartTerminal;
  /** The terminal could not load (its chunk failed, say): the session never starts. */
  onLoadFailed: (reason: string) => void;
  /** Once disconnected: offered as a Reconnect button beside the status when given. */
  onReconnect?: () => void;
  /** More about the session, beside its status (read-only badge, participants). */
  info?: ReactNode;
  /** Buttons of the page's own, before the terminal's (file transfers). */
  actions?: ReactNode;
  /** Between the toolbar and the terminal (transfer list, dialogs). */
  children?: ReactNode;
}

/**
 * One terminal on a page: toolbar (status, font size, find, copy, paste), find bar, the
 * terminal, its context menu. Which socket it talks to is the page's `start`; the server
 * console's tabs and the SQL console share everything else.
 */
export function TerminalPane(props: Props) {
  const { status, reason, active, readOnly, fontSize, setFontSize, deps } = props;
  const { ui } = useClientConfig();
  const containerRef = useRef<HTMLDivElement>(null);
  const [engine, setEngine] = useState<TerminalEngine | null>(null);
  const [findOpen, setFindOpen] = useState(false);
  const [menuAt, setMenuAt] = useState<{ x: number; y: number } | null>(null);

  // What the session starts with; later changes of these must not reconnect it. The font and
  // scrollback come from Console Settings, the scrollback defaulting to the cluster's.
  const [{ fontFamily, scrollback }] = useState(() => readTerminalSettings(ui.scrollbackLines));
  const startWith = useRef({
    fontSize,
    fontFamily,
    scrollback,
    readOnly,
    moderator: props.moderator === true,
    loadEngine: deps.loadEngine,
    start: props.start,
    onLoadFailed: props.onLoadFailed,
  });
  const shortcuts = useRef<(action: ShortcutAction) => void>(() => undefined);

  useEffect(() => {
    const { loadEngine, start, onLoadFailed, ...options } = startWith.current;
    let cancelled = false;
    let stop = () => {};
    loadEngine(options).then(
      (loaded) => {
        const container = containerRef.current;
        if (cancelled || !container) {
          loaded.dispose();
          return;
        }
        stop = start(loaded, container, (action) => shortcuts.current(action));
        setEngine(loaded);
      },
      (err: unknown) => {
        if (cancelled) return;
        const message = err instanceof Error ? err.message : String(err);
        onLoadFailed(`the terminal did not load: ${message}`);
      },
    );
    return () => {
      cancelled = true;
      stop();
    };
  }, []);

  useEffect(() => {
    engine?.setFontSize(fontSize);
  }, [engine, fontSize]);

  // A terminal shown again has its real size now: fit it and give it the keyboard.
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
          {status === 'connecting' && (
            <Text size="sm" c="dimmed" role="status">
              Connecting…
            </Text>
          )}
          {status === 'resuming' && (
            <Text size="sm" c="orange" role="status">
              Connection lost: resuming the session…
            </Text>
          )}
          {status === 'disconnected' && (
            <Text
              size="sm"
              c={isNormalSessionEnd(reason) ? 'dimmed' : 'red'}
              role="status"
              data-ended={isNormalSessionEnd(reason) ? 'normally' : 'failed'}
            >
              disconnected: {reason}
            </Text>
          )}
          {status === 'disconnected' && props.onReconnect && (
            <Button size="compact-xs" variant="light" onClick={props.onReconnect}>
              Reconnect
            </Button>
          )}
          {props.info}
        </Group>
        <Group gap={4} wrap="nowrap">
          {props.actions}
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
      {props.children}
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
