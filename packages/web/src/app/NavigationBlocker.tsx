import { Button, Group, Modal, Text } from '@mantine/core';
import { useEffect } from 'react';
import { useBlocker, type BlockerFunction } from 'react-router';

/**
 * Asks before leaving a page while `when` is true (spec §2: a navigation can be blocked with a
 * confirmation). In-app navigations get a modal; closing or reloading the tab gets the
 * browser's own prompt.
 */
export function useNavigationBlocker(when: boolean) {
  // Only a change of page blocks: search or hash updates on the same page pass.
  const shouldBlock: BlockerFunction = ({ currentLocation, nextLocation }) =>
    when && currentLocation.pathname !== nextLocation.pathname;
  const blocker = useBlocker(shouldBlock);

  useEffect(() => {
    if (!when) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [when]);

  return blocker;
}

interface Props {
  when: boolean;
  title?: string;
  message?: string;
}

export function NavigationBlocker({
  when,
  title = 'Leave this page?',
  message = 'Changes you made will be lost.',
}: Props) {
  const blocker = useNavigationBlocker(when);
  const blocked = blocker.state === 'blocked';
  const stay = () => blocker.reset?.();
  return (
    <Modal opened={blocked} onClose={stay} title={title} centered>
      <Text mb="lg">{message}</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={stay}>
          Stay
        </Button>
        <Button color="red" onClick={() => blocker.proceed?.()}>
          Leave
        </Button>
      </Group>
    </Modal>
  );
}
