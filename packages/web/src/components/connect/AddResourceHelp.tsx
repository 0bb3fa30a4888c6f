import { Code } from '@mantine/core';
import type { ReactNode } from 'react';
import { EmptyStateCard } from '../EmptyStateCard';

/**
 * A resource list's empty state: how the first one joins. Every kind says it the same way (what
 * makes one appear, an example file, the command that creates it), then its own ways (`children`:
 * the config file's key, an agent inside the resource's network).
 */
export function AddResourceHelp({
  id,
  title,
  intro,
  example,
  file,
  children,
}: {
  /** The heading's id, which names the section. */
  id: string;
  title: string;
  intro: ReactNode;
  /** The example resource, as YAML. */
  example: string;
  /** The example's file name, for `postern create -f`. */
  file: string;
  children?: ReactNode;
}) {
  return (
    <EmptyStateCard id={id} title={title}>
      {intro}
      <Code block>{example}</Code>
      <Code block>postern create -f {file}</Code>
      {children}
    </EmptyStateCard>
  );
}
