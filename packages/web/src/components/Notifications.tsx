import { Notification, Stack, Text } from '@mantine/core';
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';
import { layout, zIndex } from '../theme/constants';

/** A message for the user that is not tied to one page: it stays until closed. */
export interface Notice {
  /** Left out when the message says it all. */
  title?: string;
  message: string;
  color?: string;
}

/** Below the top bar (pages without one lose nothing), so the user menu stays reachable. */
const noticesTop = layout.topBarHeight + 16;

type Notify = (notice: Notice) => void;

const NotifyContext = createContext<Notify | null>(null);

/** Shows a notification; a notice already on screen is not shown twice. */
export function useNotify(): Notify {
  const notify = useContext(NotifyContext);
  if (!notify) throw new Error('useNotify needs a NotificationsProvider');
  return notify;
}

interface Shown extends Notice {
  id: number;
}

/** Holds the notifications and shows them at the top right, under the top bar, above dialogs. */
export function NotificationsProvider({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState<Shown[]>([]);
  const nextId = useRef(1);

  const notify = useCallback<Notify>((notice) => {
    const id = nextId.current++;
    setShown((list) =>
      list.some((n) => n.title === notice.title && n.message === notice.message)
        ? list
        : [...list, { ...notice, id }],
    );
  }, []);
  const close = (id: number) => setShown((list) => list.filter((n) => n.id !== id));

  return (
    <NotifyContext.Provider value={notify}>
      {children}
      {shown.length > 0 && (
        <Stack
          pos="fixed"
          top={noticesTop}
          right={16}
          w={400}
          maw="calc(100vw - 32px)"
          gap="xs"
          style={{ zIndex: zIndex.notification }}
          aria-live="assertive"
        >
          {shown.map((n) => (
            <Notification
              key={n.id}
              title={n.title}
              color={n.color ?? 'red'}
              role="alert"
              aria-label={n.title ?? n.message}
              withBorder
              closeButtonProps={{ 'aria-label': 'Close notification' }}
              onClose={() => close(n.id)}
            >
              <Text size="sm" fw={n.title ? undefined : 600} style={{ overflowWrap: 'anywhere' }}>
                {n.message}
              </Text>
            </Notification>
          ))}
        </Stack>
      )}
    </NotifyContext.Provider>
  );
}
