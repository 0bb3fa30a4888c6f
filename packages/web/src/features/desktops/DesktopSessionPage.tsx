import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Center,
  Code,
  Group,
  Loader,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import { useUserAcl } from '../../app/userContext';
import {
  DesktopConnection,
  type DesktopDeps,
  type DesktopStatus,
  type DesktopTarget,
} from './desktopConnection';
import { useSessionMfaPrompt } from '../../components/SessionMfaDialog';
import { browserDesktopDeps } from './desktopDeps';

/**
 * `/web/cluster/:clusterId/desktops/:desktopName/:username`: one desktop session (full page), a
 * toolbar over the desktop, which noVNC draws in a canvas. One session per page: another desktop
 * or login is another page; Reconnect starts this one again.
 */
export function DesktopSessionPage({ deps }: { deps?: Partial<DesktopDeps> } = {}) {
  const { proxyCluster } = useClientConfig();
  const params = useParams();
  const target: DesktopTarget = {
    clusterId: params.clusterId ?? proxyCluster,
    desktopName: params.desktopName ?? '',
    username: params.username ?? '',
  };
  const { clusterId, desktopName, username } = target;
  const clipboardSharing = useUserAcl().clipboardSharingEnabled;
  const allDeps = useMemo<DesktopDeps>(() => ({ ...browserDesktopDeps(), ...deps }), [deps]);

  const rootRef = useRef<HTMLDivElement>(null);
  const screenRef = useRef<HTMLDivElement>(null);
  const connectionRef = useRef<DesktopConnection | undefined>(undefined);
  const [status, setStatus] = useState<DesktopStatus>({ state: 'connecting', step: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const fullscreen = useFullscreen();
  const mfa = useSessionMfaPrompt();
  const askMfa = mfa.ask;

  useEffect(() => {
    const screen = screenRef.current;
    if (!screen) return;
    setStatus({ state: 'connecting', step: 'loading' });
    const connection = new DesktopConnection({
      target: { clusterId, desktopName, username },
      // The room the page has for the desktop (the window less the toolbar).
      size: {
        width: screen.clientWidth || window.innerWidth,
        height: screen.clientHeight || window.innerHeight,
      },
      screen,
      clipboardSharing,
      deps: allDeps,
      onStatus: setStatus,
      onMfa: askMfa,
    });
    connectionRef.current = connection;
    void connection.start();
    return () => {
      connection.dispose();
      if (connectionRef.current === connection) connectionRef.current = undefined;
    };
  }, [clusterId, desktopName, username, clipboardSharing, allDeps, attempt, askMfa]);

  const connected = status.state === 'connected';
  const ended = status.state === 'ended';
  return (
    <Box
      ref={rootRef}
      style={{ display: 'flex', flexDirection: 'column', height: '100dvh', background: 'black' }}
    >
      <Group
        component="header"
        gap="sm"
        px="sm"
        py={6}
        wrap="nowrap"
        aria-label="Desktop toolbar"
        style={{
          borderBottom: '1px solid var(--mantine-color-default-border)',
          background: 'var(--mantine-color-body)',
          flexShrink: 0,
          overflowX: 'auto',
        }}
      >
        <Anchor
          href={routePath('clusterDesktops', { clusterId })}
          fw={700}
          fz="sm"
          aria-label="Postern desktops"
        >
          Postern
        </Anchor>
        <Title order={1} fz="sm" fw={600} style={{ whiteSpace: 'nowrap' }}>
          {desktopName}
        </Title>
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          as <Code aria-label="Login">{username}</Code>
        </Text>
        <ClipboardBadge on={clipboardSharing} />
        <Text size="xs" c="dimmed" aria-live="polite" style={{ whiteSpace: 'nowrap' }}>
          {statusText(status)}
        </Text>
        <Box style={{ flex: 1 }} />
        <Button
          size="compact-sm"
          variant="default"
          disabled={!connected}
          onClick={() => connectionRef.current?.ctrlAltDel()}
        >
          Ctrl-Alt-Del
        </Button>
        <Button
          size="compact-sm"
          variant="default"
          onClick={() => fullscreen.toggle(rootRef.current)}
        >
          {fullscreen.on ? 'Exit fullscreen' : 'Fullscreen'}
        </Button>
        <Button
          size="compact-sm"
          color="red"
          variant="light"
          disabled={ended}
          onClick={() => connectionRef.current?.disconnect()}
        >
          Disconnect
        </Button>
      </Group>
      <Box style={{ flex: 1, minHeight: 0, position: 'relative' }}>
        {/* noVNC's own element goes in here; React renders nothing inside it. */}
        <div
          ref={screenRef}
          data-testid="desktop-screen"
          style={{ width: '100%', height: '100%' }}
        />
        {!connected && (
          <Center style={{ position: 'absolute', inset: 0 }} p="md">
            {ended ? (
              <EndedMessage
                status={status}
                desktopsHref={routePath('clusterDesktops', { clusterId })}
                onReconnect={() => setAttempt((n) => n + 1)}
              />
            ) : (
              <Group gap="xs" c="gray.3">
                <Loader size="sm" color="gray.3" />
                <Text size="sm">Connecting to {desktopName}…</Text>
              </Group>
            )}
          </Center>
        )}
      </Box>
      {mfa.dialog}
    </Box>
  );
}

function statusText(status: DesktopStatus): string {
  switch (status.state) {
    case 'connecting':
      return status.step === 'handshake' ? 'Starting the desktop…' : 'Connecting…';
    case 'connected':
      return 'Connected';
    case 'ended':
      return 'Disconnected';
  }
}

function ClipboardBadge({ on }: { on: boolean }) {
  return (
    <Tooltip
      label={
        on
          ? 'Text you copy here reaches the desktop, and the desktop’s copies reach your clipboard.'
          : 'Your roles do not share the clipboard with desktops: copy and paste stay on each side.'
      }
      multiline
      w={280}
      events={{ hover: true, focus: true, touch: true }}
    >
      <Badge
        variant="light"
        color={on ? 'green' : 'gray'}
        tt="none"
        tabIndex={0}
        style={{ flexShrink: 0 }}
      >
        {on ? 'Clipboard sharing on' : 'Clipboard sharing off'}
      </Badge>
    </Tooltip>
  );
}

function EndedMessage(props: {
  status: Extract<DesktopStatus, { state: 'ended' }>;
  desktopsHref: string;
  onReconnect: () => void;
}) {
  const { status, desktopsHref, onReconnect } = props;
  const actions = (
    <Group gap="xs" mt="xs">
      <Button size="compact-sm" onClick={onReconnect}>
        Reconnect
      </Button>
      <Button size="compact-sm" variant="default" component="a" href={desktopsHref}>
        Back to Desktops
      </Button>
    </Group>
  );
  if (status.failed) {
    return (
      <Alert color="red" title="Disconnected" role="alert" maw={560} w="100%">
        <Stack gap={4}>
          <Text size="sm" data-testid="desktop-ended-reason">
            {status.reason}
          </Text>
          {actions}
        </Stack>
      </Alert>
    );
  }
  return (
    <Alert color="gray" title="Disconnected" role="status" maw={560} w="100%">
      <Stack gap={4}>
        <Text size="sm" data-testid="desktop-ended-reason">
          {status.reason}
        </Text>
        {actions}
      </Stack>
    </Alert>
  );
}

/** Fullscreen for the page's root element, following the browser's own state (Esc leaves it). */
function useFullscreen() {
  const [on, setOn] = useState(
    () => typeof document !== 'undefined' && !!document.fullscreenElement,
  );
  useEffect(() => {
    const changed = () => setOn(!!document.fullscreenElement);
    document.addEventListener('fullscreenchange', changed);
    return () => document.removeEventListener('fullscreenchange', changed);
  }, []);
  const toggle = (element: HTMLElement | null) => {
    const request = document.fullscreenElement
      ? document.exitFullscreen?.()
      : element?.requestFullscreen?.();
    // The browser may refuse (no user gesture, an iframe without allowfullscreen).
    void request?.catch(() => undefined);
  };
  return { on, toggle };
}
