/**
 * The access requests an X.509 certificate issued on a login's strength assumed (`postern kube
 * login`, `postern db login` after `postern request assume`), carried as subject alternative
 * name URIs, one per request: their roles count while they are approved, and an
 * `access_request` lock on one refuses the certificate.
 */
const uriScheme = 'postern-access-request:';

const requestIdPattern = /^[0-9a-f-]{36}$/;

/** The alternative name naming request `id`, for `SubjectAlternativeNameExtension`. */
export function accessRequestAltName(id: string): { type: 'url'; value: string } {
  return { type: 'url', value: `${uriScheme}${id}` };
}

/** The well-formed requests named among a peer certificate's alternative names. */
export function accessRequestsOfAltNames(names: readonly string[]): string[] {
  const prefix = `URI:${uriScheme}`;
  return names
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length))
    .filter((id) => requestIdPattern.test(id));
}
