/**
 * Links in terminal output (web links and OSC 8 hyperlinks) open only when they are http(s), in a
 * new tab without access to this one: output from a remote host must never run script here.
 */
export function safeLinkTarget(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

export function openLink(uri: string, open: typeof window.open = window.open.bind(window)): void {
  const target = safeLinkTarget(uri);
  if (target) open(target, '_blank', 'noopener,noreferrer');
}
