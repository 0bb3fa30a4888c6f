import { Card, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A list's empty state: a section titled with why the list is empty, then what to do about it.
 * The title names the section (`aria-labelledby`), so assistive technology finds it by name.
 */
export function EmptyStateCard({
  id,
  title,
  children,
  align,
}: {
  /** The heading's id. */
  id: string;
  title: string;
  children: ReactNode;
  /** `flex-start` keeps buttons at their own width. */
  align?: 'flex-start';
}) {
  return (
    <Card withBorder padding="lg" aria-labelledby={id} component="section">
      <Stack gap="sm" align={align}>
        <Title order={3} id={id}>
          {title}
        </Title>
        {children}
      </Stack>
    </Card>
  );
}
