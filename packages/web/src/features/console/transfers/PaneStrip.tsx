import { Stack } from '@mantine/core';
import type { CSSProperties, ReactNode } from 'react';

/** A labelled list across the top of a terminal pane (transfers, requests), one row per item. */
export function PaneStrip({
  label,
  style,
  children,
}: {
  label: string;
  /** What this strip adds to the common look: a height limit, a background. */
  style?: CSSProperties;
  children: ReactNode;
}) {
  return (
    <Stack
      component="ul"
      aria-label={label}
      gap={6}
      px="sm"
      py={6}
      m={0}
      style={{
        listStyle: 'none',
        borderBottom: '1px solid var(--mantine-color-default-border)',
        flexShrink: 0,
        ...style,
      }}
    >
      {children}
    </Stack>
  );
}
