import { Text, ThemeIcon } from '@mantine/core';
import type { ConnectorKind } from '@postern/contracts';

/** How people name each kind of single sign-on connector. */
export const connectorKindLabels: Record<ConnectorKind, string> = {
  oidc: 'OIDC',
  saml: 'SAML',
  github: 'GitHub',
};

// Short glyphs instead of brand logos: the console ships no icon font, and the login page
// (which shows these too) must stay small.
const kindGlyphs: Record<ConnectorKind, string> = { oidc: 'ID', saml: 'SA', github: 'GH' };
const kindColors: Record<ConnectorKind, string> = { oidc: 'orange', saml: 'grape', github: 'dark' };

/** A connector kind as an icon named for screen readers (or hidden, beside a text that says it). */
export function ConnectorKindIcon({
  kind,
  size = 'lg',
  decorative = false,
}: {
  kind: ConnectorKind;
  size?: 'sm' | 'md' | 'lg';
  decorative?: boolean;
}) {
  const naming = decorative
    ? { 'aria-hidden': true }
    : { role: 'img', 'aria-label': connectorKindLabels[kind] };
  return (
    <ThemeIcon variant="light" color={kindColors[kind]} size={size} {...naming}>
      <Text ff="monospace" fz="xs" fw={600} aria-hidden>
        {kindGlyphs[kind]}
      </Text>
    </ThemeIcon>
  );
}
