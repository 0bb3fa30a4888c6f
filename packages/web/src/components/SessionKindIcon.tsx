import { Text, ThemeIcon } from '@mantine/core';
import type { SessionKind } from '@postern/contracts';

const kindLabels: Record<SessionKind, string> = {
  ssh: 'SSH',
  k8s: 'Kubernetes',
  db: 'Database',
  app: 'Application',
  desktop: 'Desktop',
};

const kindGlyphs: Record<SessionKind, string> = {
  ssh: '>_',
  k8s: 'K8s',
  db: 'DB',
  app: 'App',
  desktop: 'RDP',
};

/** The kind of a session, live or recorded, as an icon named for screen readers. */
export function SessionKindIcon({ kind }: { kind: SessionKind }) {
  return (
    <ThemeIcon variant="light" size="lg" role="img" aria-label={`${kindLabels[kind]} session`}>
      <Text ff="monospace" fz="xs" fw={600} aria-hidden>
        {kindGlyphs[kind]}
      </Text>
    </ThemeIcon>
  );
}
