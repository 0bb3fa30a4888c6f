import { Card, Center, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { layout, space } from '../theme/constants';

/** A centred card with a title: the frame of every fallback and message screen. */
export function MessageCard({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Center py={space[6]} px={space[3]}>
      <Card withBorder shadow="sm" padding="xl" w="100%" maw={layout.cardWidth}>
        <Stack gap="md">
          <Title order={2} ta="center">
            {title}
          </Title>
          {children}
        </Stack>
      </Card>
    </Center>
  );
}
