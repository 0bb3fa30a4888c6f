import { Button } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A way in from the browser (a SQL console, an exec terminal) that opens in a new tab, once
 * `href` is known; without it, the same button disabled, so the choices still to make show.
 */
export function NewTabButton({
  href,
  children,
}: {
  href: string | undefined;
  children: ReactNode;
}) {
  if (!href) {
    return (
      <Button size="compact-sm" variant="light" disabled>
        {children}
      </Button>
    );
  }
  return (
    <Button
      component="a"
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      size="compact-sm"
      variant="light"
    >
      {children}
    </Button>
  );
}
