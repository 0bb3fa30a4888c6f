import { secretPlaceholder } from '@postern/contracts';

/**
 * What the editor reads from the YAML as it is typed, without a YAML parser (the server parses
 * for real): the name for the SAML guide's URLs, and whether secrets are hidden.
 */

/** `metadata.name`, or undefined while the text has none. */
export function connectorNameIn(text: string): string | undefined {
  const match =
    /^metadata:[ \t]*\n(?:(?:[ \t]+.*|[ \t]*)\n)*?[ \t]+name:[ \t]*['"]?([^'"\s#]+)/m.exec(text);
  return match?.[1];
}

/** True when the server replaced a secret with the placeholder. */
export const hidesSecrets = (text: string) => text.includes(secretPlaceholder);
