import { Anchor, Box, Group, Title } from '@mantine/core';
import { useMemo, useState, type ReactNode } from 'react';
import type { TerminalStatus } from './consoleStore';
import { useTerminalFontSize } from './fontSize';
import { useSessionMfaPrompt } from '../../components/SessionMfaDialog';
import { startTerminalSession, type TerminalSocketTarget } from './startTerminalSession';
import { browserTerminalDeps, type TerminalDeps } from './terminalDeps';
import { TerminalPane, type StartTerminal } from './TerminalPane';

interface Props {
  /** Where the header's Postern link goes (the list the page was opened from), and its name. */
  home: { href: string; label: string };
  /** The page's level-1 heading. */
  title: ReactNode;
  /** What the session is on, beside the heading. */
  details?: ReactNode;
  target: TerminalSocketTarget;
  /** Another value is another session: the old one ends and a new one starts. */
  sessionKey: string;
  /** Test seams over the browser's (socket, engine, clipboard). */
  deps?: Partial<TerminalDeps>;
}

/**
 * A full page holding one terminal on one socket (the SQL console, Kubernetes exec): a slim
 * header, then the server console's terminal, one session per page.
 */
export function SingleTerminalPage({ home, title, details, target, sessionKey, deps }: Props) {
  const allDeps = useMemo<TerminalDeps>(() => ({ ...browserTerminalDeps(), ...deps }), [deps]);
  return (
    <Box style={{ display: 'flex', flexDirection: 'column', height: '100dvh' }}>
      <Group
        component="header"
        gap="sm"
        px="sm"
        py={8}
        wrap="nowrap"
        style={{
          borderBottom: '1px solid var(--mantine-color-default-border)',
          background: 'var(--mantine-color-default-hover)',
          flexShrink: 0,
          overflowX: 'auto',
        }}
      >
        <Anchor href={home.href} fw={700} fz="sm" aria-label={home.label}>
          Postern
        </Anchor>
        <Title order={1} fz="sm" fw={600} style={{ whiteSpace: 'nowrap' }}>
          {title}
        </Title>
        {details}
      </Group>
      <Box style={{ flex: 1, minHeight: 0 }}>
        <SocketTerminal key={sessionKey} target={target} deps={allDeps} />
      </Box>
    </Box>
  );
}

/** The terminal and its one session; `target` is read when it starts. */
function SocketTerminal({ target, deps }: { target: TerminalSocketTarget; deps: TerminalDeps }) {
  const [fontSize, setFontSize] = useTerminalFontSize();
  const [state, setState] = useState<{ status: TerminalStatus; reason: string }>({
    status: 'connecting',
    reason: '',
  });
  const disconnected = (reason: string) =>
    setState((now) => (now.status === 'disconnected' ? now : { status: 'disconnected', reason }));
  const mfa = useSessionMfaPrompt();

  const start: StartTerminal = (engine, container, onShortcut) =>
    startTerminalSession(engine, container, {
      target,
      deps,
      readOnly: false,
      onShortcut,
      events: {
        connected: () =>
          setState((now) =>
            now.status === 'disconnected' ? now : { ...now, status: 'connected' },
          ),
        resuming: () =>
          setState((now) => (now.status === 'connected' ? { ...now, status: 'resuming' } : now)),
        disconnected,
        mfaChallenge: mfa.ask,
      },
    });

  return (
    <TerminalPane
      status={state.status}
      reason={state.reason}
      active
      readOnly={false}
      fontSize={fontSize}
      setFontSize={setFontSize}
      deps={deps}
      start={start}
      onLoadFailed={disconnected}
    >
      {mfa.dialog}
    </TerminalPane>
  );
}
