import { Badge, Button, Group } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useNotify } from '../../components/Notifications';
import { formatDuration, parseTimestamp } from '../../lib/format';
import { pageLocation } from '../../lib/pageLocation';
import { dropAssumedRoles } from '../session/switchRoles';
import { useUserContext } from '../userContext';
import { useTimeLeft } from './useTimeLeft';

interface ViewProps {
  roles: string[];
  /** Undefined when the request's end is not known. */
  timeLeftMs: number | undefined;
  onDrop: () => void;
  dropping: boolean;
}

/** "Assumed: dba · 59:58" and a Drop button, in the top bar. */
export function AssumedRolesView({ roles, timeLeftMs, onDrop, dropping }: ViewProps) {
  const left = timeLeftMs === undefined ? '' : ` · ${formatDuration(timeLeftMs)}`;
  return (
    <Group gap={4} wrap="nowrap">
      <Badge color="orange" variant="light" tt="none" size="lg" role="status">
        Assumed: {roles.length > 0 ? roles.join(', ') : 'requested access'}
        {left}
      </Badge>
      <Button size="compact-sm" variant="subtle" color="orange" loading={dropping} onClick={onDrop}>
        Drop
      </Button>
    </Group>
  );
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * While the session carries an approved request's roles: what they are and how long they last.
 * Drop goes back to the base roles; when the time runs out the console does so by itself (or,
 * when the server has already dropped them, loads the page again), so the base roles show.
 */
export function AssumedRoles({ drop = dropAssumedRoles }: { drop?: () => Promise<void> }) {
  const context = useUserContext();
  const expires = parseTimestamp(context.accessRequestExpires);
  const timeLeft = useTimeLeft(context.accessRequestId ? expires : undefined);
  const notify = useNotify();
  const [dropping, setDropping] = useState(false);
  const autoDropped = useRef(false);
  const ranOutHere = useRef(false);
  if (timeLeft !== undefined && timeLeft > 0) ranOutHere.current = true;

  useEffect(() => {
    if (timeLeft !== 0 || autoDropped.current) return;
    autoDropped.current = true;
    setDropping(true);
    drop().catch((err: unknown) => {
      // The server may have dropped them already: a fresh page shows what it says now. A page
      // that loaded with the time already out only says so, so it never reloads in a loop.
      if (ranOutHere.current) pageLocation.assign(pageLocation.current());
      else notify({ title: 'Could not drop the assumed roles', message: messageOf(err) });
    });
  }, [timeLeft, drop, notify]);

  if (!context.accessRequestId) return null;
  const onDrop = () => {
    setDropping(true);
    drop().catch((err: unknown) => {
      notify({ title: 'Could not drop the assumed roles', message: messageOf(err) });
      setDropping(false);
    });
  };
  return (
    <AssumedRolesView
      roles={context.assumedRoles}
      timeLeftMs={timeLeft}
      onDrop={onDrop}
      dropping={dropping}
    />
  );
}
