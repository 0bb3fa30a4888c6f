import { Card, SimpleGrid, Stack, Text, UnstyledButton } from '@mantine/core';
import type { EnrollKind } from './enrollKinds';

interface Props {
  kinds: readonly { kind: EnrollKind; watchable: boolean }[];
  /** The user may create join tokens: without, every kind is shown, disabled. */
  mayAdd: boolean;
  onChoose: (kind: EnrollKind) => void;
}

/** The first step: what to enrol. */
export function KindPicker({ kinds, mayAdd, onChoose }: Props) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
      {kinds.map(({ kind, watchable }) => (
        <UnstyledButton
          key={kind.id}
          onClick={() => onChoose(kind)}
          disabled={!mayAdd}
          aria-label={kind.title}
          aria-describedby={`enroll-${kind.id}-about`}
          style={{ opacity: mayAdd ? 1 : 0.55, cursor: mayAdd ? 'pointer' : 'not-allowed' }}
        >
          <Card withBorder padding="md" h="100%">
            <Stack gap={4}>
              <Text fw={600}>{kind.title}</Text>
              <Text size="sm" c="dimmed" id={`enroll-${kind.id}-about`}>
                {kind.description}
              </Text>
              {mayAdd && !watchable && (
                <Text size="xs" c="orange">
                  Your roles do not list these: you can add one, but not see it join.
                </Text>
              )}
            </Stack>
          </Card>
        </UnstyledButton>
      ))}
    </SimpleGrid>
  );
}
