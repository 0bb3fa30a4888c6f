import { Card, SimpleGrid, Stack, Text, UnstyledButton } from '@mantine/core';
import type { EnrollKind } from './enrollKinds';

interface Props {
  kinds: readonly { kind: EnrollKind; available: boolean }[];
  onChoose: (kind: EnrollKind) => void;
}

/** The first step: what to enrol. A kind whose list the user cannot read is shown, disabled. */
export function KindPicker({ kinds, onChoose }: Props) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
      {kinds.map(({ kind, available }) => (
        <UnstyledButton
          key={kind.id}
          onClick={() => onChoose(kind)}
          disabled={!available}
          aria-label={kind.title}
          aria-describedby={`enroll-${kind.id}-about`}
          style={{ opacity: available ? 1 : 0.55, cursor: available ? 'pointer' : 'not-allowed' }}
        >
          <Card withBorder padding="md" h="100%">
            <Stack gap={4}>
              <Text fw={600}>{kind.title}</Text>
              <Text size="sm" c="dimmed" id={`enroll-${kind.id}-about`}>
                {kind.description}
              </Text>
              {!available && (
                <Text size="xs" c="orange">
                  Your roles do not let you list these, so you could not see one join.
                </Text>
              )}
            </Stack>
          </Card>
        </UnstyledButton>
      ))}
    </SimpleGrid>
  );
}
