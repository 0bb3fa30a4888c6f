import { parseStringPromise, processors } from 'xml2js';
import type { SamlConnector } from '@postern/contracts';
import { assertSafeUrl, ProviderError } from './provider-http.js';

const redirectBinding = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** What the SP needs of an IdP: where to send people and the certificates that sign for it. */
export interface SamlIdp {
  sso: string;
  certs: string[];
}

/**
 * The IdP of a connector: `sso` and `cert` when given, else read from its metadata (the
 * `entity_descriptor` XML, or fetched from `entity_descriptor_url` at each sign-in).
 */
export async function samlIdpOf(connector: SamlConnector): Promise<SamlIdp> {
  const { sso, cert, entity_descriptor, entity_descriptor_url } = connector.spec;
  if (sso && cert) return { sso, certs: [cert] };
  let xml = entity_descriptor;
  if (!xml && entity_descriptor_url) {
    assertSafeUrl(entity_descriptor_url);
    const response = await fetch(entity_descriptor_url, {
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new ProviderError(`IdP metadata answered ${response.status}`);
    xml = await response.text();
  }
  if (!xml) throw new ProviderError('the connector names no IdP (sso and cert, or metadata)');
  const fromMetadata = await readIdpMetadata(xml);
  return { sso: sso ?? fromMetadata.sso, certs: cert ? [cert] : fromMetadata.certs };
}

/** The HTTP-Redirect SSO location and the signing certificates of an IdP's metadata. */
export async function readIdpMetadata(xml: string): Promise<SamlIdp> {
  // Namespace prefixes vary between IdPs (md:, none, …): match on local names.
  const doc = (await parseStringPromise(xml, {
    tagNameProcessors: [processors.stripPrefix],
    explicitArray: true,
  })) as XmlNode;
  const sso = findAll(doc, 'SingleSignOnService').find((s) => s.$?.Binding === redirectBinding);
  const certs = findAll(doc, 'KeyDescriptor')
    .filter((k) => (k.$?.use ?? 'signing') === 'signing')
    .flatMap((k) => findAll(k, 'X509Certificate'))
    .map((c) => textOf(c).replace(/\s+/g, ''))
    .filter(Boolean);
  const location = sso?.$?.Location;
  if (!location || certs.length === 0) {
    throw new ProviderError('the IdP metadata has no HTTP-Redirect SSO service or no signing cert');
  }
  return { sso: location, certs };
}

interface XmlNode {
  $?: Record<string, string>;
  _?: string;
  [child: string]: unknown;
}

/** Every element of that local name below the node, depth first. */
function findAll(node: unknown, name: string): XmlNode[] {
  if (typeof node !== 'object' || node === null) return [];
  const found: XmlNode[] = [];
  // A text-only element is its text; it is wrapped so callers see one shape.
  for (const [key, value] of Object.entries(node)) {
    if (key === '$' || key === '_') continue;
    for (const child of Array.isArray(value) ? value : [value]) {
      if (key === name) found.push(typeof child === 'string' ? { _: child } : (child as XmlNode));
      found.push(...findAll(child, name));
    }
  }
  return found;
}

const textOf = (node: unknown) =>
  typeof node === 'string' ? node : ((node as XmlNode | null)?._ ?? '');
