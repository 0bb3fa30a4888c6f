import { Paper } from '@mantine/core';
import type { ReactNode } from 'react';

/** What the assistant says or shows, on the left of the conversation. */
export function AssistantBubble({ children }: { children: ReactNode }) {
  return (
    <Paper component="article" aria-label="Assistant" withBorder p="sm" radius="md" maw="90%">
      {children}
    </Paper>
  );
}
