/** The placeholders the console's index.html carries, filled in for every request. */
export const csrfPlaceholder = '__POSTERN_CSRF_TOKEN__';
export const bearerPlaceholder = '__POSTERN_BEARER_TOKEN__';

const htmlEscapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtmlAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (char) => htmlEscapes[char] ?? char);
}

/**
 * Fills the index template. The bearer travels as base64 JSON, the shape the login call returns,
 * so the console has one way to read a session whether it came from a login or a page load.
 */
export function renderIndex(
  template: string,
  values: { csrfToken: string; bearer?: object },
): string {
  const bearer = values.bearer ? Buffer.from(JSON.stringify(values.bearer)).toString('base64') : '';
  return template
    .replace(csrfPlaceholder, escapeHtmlAttribute(values.csrfToken))
    .replace(bearerPlaceholder, escapeHtmlAttribute(bearer));
}

/** Shown when the console has not been built, so a fresh checkout explains itself. */
export const consoleNotBuiltPage = `<!doctype html><html><head><meta charset="utf-8"><title>Postern</title></head>
<body><h1>The Postern console is not built</h1><p>Run <code>npm run build</code> (or <code>npm start</code>) and reload.</p></body></html>`;
