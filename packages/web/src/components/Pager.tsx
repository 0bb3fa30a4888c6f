import { Button, Group, Text } from '@mantine/core';

interface Props {
  from: number;
  to: number;
  total: number;
  canPrev: boolean;
  canNext: boolean;
  onPrev: () => void;
  onNext: () => void;
  /** Names the list in the navigation's label, e.g. 'servers'. */
  itemsLabel?: string;
  /** While the next page loads: the buttons wait. */
  busy?: boolean;
}

/** "1–15 of 42" with Prev and Next, for server-side (cursor) pagination. */
export function Pager(props: Props) {
  const { from, to, total, canPrev, canNext, onPrev, onNext, itemsLabel, busy = false } = props;
  return (
    <Group
      component="nav"
      aria-label={itemsLabel ? `Pages of ${itemsLabel}` : 'Pages'}
      justify="flex-end"
      gap="sm"
    >
      <Text size="sm" c="dimmed" aria-live="polite">
        {total === 0 ? '0 of 0' : `${from}–${to} of ${total}`}
      </Text>
      <Button
        variant="default"
        size="compact-sm"
        onClick={onPrev}
        disabled={!canPrev || busy}
        aria-label="Previous page"
      >
        Prev
      </Button>
      <Button
        variant="default"
        size="compact-sm"
        onClick={onNext}
        disabled={!canNext || busy}
        aria-label="Next page"
      >
        Next
      </Button>
    </Group>
  );
}
