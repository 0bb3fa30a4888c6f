import { randomBytes, webcrypto } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';
// CommonJS packages: their default import is `module.exports`, under Node and under vitest alike.
import xmllint from '@authenio/samlify-node-xmllint';
import samlify from 'samlify';

/** A person at the test IdP: the NameID and the attributes of their assertions. */
export interface SamlTestUser {
  attributes: Record<string, string[]>;
}

export interface TestSamlIdp {
  entityId: string;
  /** The IdP's metadata (HTTP-Redirect SSO service and signing certificate), as a connector takes it. */
  metadataXml: string;
  metadataUrl: string;
  /** Signing certificate, PEM. */
  cert: string;
  users: Map<string, SamlTestUser>;
  /** Who is signed in at the IdP: its SSO endpoint answers for them at once. */
  signedInAs: string;
  /** When set, the Recipient asserted instead of the SP's ACS (a misdirected assertion). */
  recipient?: string | undefined;
  close(): Promise<void>;
}

const signingAlgorithm = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;

const { binding: bindings, format } = samlify.Constants.namespace;
const nameIdFormat = format.unspecified;

/** Fetches an SP's metadata from its entity ID, which for Postern is its metadata URL. */
async function fetchMetadata(entityId: string): Promise<string> {
  const response = await fetch(entityId, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`SP metadata at ${entityId} answered ${response.status}`);
  return response.text();
}

/**
 * A SAML 2.0 identity provider on loopback, built with samlify. `GET /metadata` serves its
 * metadata (samlify's: entity ID, signing certificate, HTTP-Redirect SSO service). `GET /sso`
 * takes the SP's AuthnRequest by the HTTP-Redirect binding: samlify parses and schema-checks it
 * (xmllint compiled to JavaScript, the SAML 2.0 XSDs), the SP being known by its metadata
 * (`spMetadata`, by default fetched from the request's Issuer, Postern's metadata URL). It answers
 * for the user `signedInAs` with samlify's login Response by the HTTP-POST binding: a form a script
 * posts to the ACS, as real IdPs do. The assertion is signed (RSA-SHA256) because the SP's
 * metadata says WantAssertionsSigned; it carries InResponseTo, the recipient, the audience, the
 * NameID, an AuthnStatement, the user's attributes and a five-minute validity.
 */
export async function startTestSamlIdp(options: {
  users: Record<string, SamlTestUser>;
  signedInAs: string;
  /** The SP's metadata XML for its entity ID (the AuthnRequest's Issuer). */
  spMetadata?: (entityId: string) => Promise<string>;
}): Promise<TestSamlIdp> {
  // The AuthnRequest is validated against the SAML schemas, without native binaries.
  samlify.setSchemaValidator(xmllint);
  // Node's WebCrypto is the standard one; the cast bridges Node's and the DOM's declarations of it.
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const keys = (await webcrypto.subtle.generateKey(signingAlgorithm, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Postern test IdP',
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + 86400_000),
    keys: keys as unknown as CryptoKeyPair,
    signingAlgorithm,
  });
  const cert = certificate.toString('pem');
  const privateKey = x509.PemConverter.encode(
    await webcrypto.subtle.exportKey('pkcs8', keys.privateKey),
    'PRIVATE KEY',
  );

  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const entityId = `${base}/metadata`;
  const samlIdp = samlify.IdentityProvider({
    entityID: entityId,
    signingCert: cert,
    privateKey,
    requestSignatureAlgorithm: samlify.Constants.algorithms.signature.RSA_SHA256,
    nameIDFormat: [nameIdFormat],
    singleSignOnService: [{ Binding: bindings.redirect, Location: `${base}/sso` }],
    wantAuthnRequestsSigned: false,
  });
  const metadataXml = samlIdp.getMetadata();
  const spMetadata = options.spMetadata ?? fetchMetadata;

  const idp: TestSamlIdp = {
    entityId,
    metadataXml,
    metadataUrl: entityId,
    cert,
    users: new Map(Object.entries(options.users)),
    signedInAs: options.signedInAs,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };

  async function signOn(url: URL): Promise<string> {
    const query = Object.fromEntries(url.searchParams);
    if (!query.SAMLRequest) throw new Error('no SAMLRequest');
    // The SP is known by its metadata, looked up by the request's Issuer.
    const request = samlify.Utility.inflateString(query.SAMLRequest);
    const { issuer } = samlify.Extractor.extract(request, samlify.Extractor.loginRequestFields) as {
      issuer?: string;
    };
    if (!issuer) throw new Error('the AuthnRequest names no Issuer');
    const sp = samlify.ServiceProvider({ metadata: await spMetadata(issuer) });
    const octetString = url.search.slice(1).replace(/&Signature=[^&]*/, '');
    const parsed = await samlIdp.parseLoginRequest(sp, 'redirect', { query, octetString });
    const { request: authnRequest } = parsed.extract as {
      request?: { id?: string; assertionConsumerServiceUrl?: string };
    };
    // samlify names bindings by their short names here ('post'), not by their URNs.
    const acs = sp.entityMeta.getAssertionConsumerService('post');
    if (typeof acs !== 'string') throw new Error('the SP metadata has no HTTP-POST ACS');
    // The Response goes to the ACS of the SP's metadata; a request naming another is refused.
    if (authnRequest?.assertionConsumerServiceUrl !== acs) {
      throw new Error(
        `the AuthnRequest's ACS is not the SP's: ${String(authnRequest?.assertionConsumerServiceUrl)}`,
      );
    }
    const user = idp.users.get(idp.signedInAs);
    if (!user) throw new Error('no such user');
    const { context, entityEndpoint } = (await samlIdp.createLoginResponse(
      sp,
      // The same object: samlify's FlowResult type lacks RequestInfo's index signature.
      { ...parsed },
      'post',
      { email: idp.signedInAs },
      {
        customTagReplacement: (template) =>
          loginResponse(template, {
            acs,
            recipient: idp.recipient ?? acs,
            audience: sp.entityMeta.getEntityID(),
            issuer: entityId,
            inResponseTo: authnRequest?.id ?? '',
            nameId: idp.signedInAs,
            attributes: user.attributes,
          }),
      },
    )) as { context: string; entityEndpoint: string };
    const relayState = query.RelayState ?? '';
    return `<form method="post" action="${escapeAttr(entityEndpoint)}"><input type="hidden" name="SAMLResponse" value="${escapeAttr(context)}"><input type="hidden" name="RelayState" value="${escapeAttr(relayState)}"></form><script>document.forms[0].submit()</script>`;
  }

  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/metadata') {
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadataXml);
      return;
    }
    if (url.pathname !== '/sso') return void res.writeHead(404).end();
    signOn(url).then(
      (form) => res.writeHead(200, { 'content-type': 'text/html' }).end(form),
      (error: unknown) =>
        res
          .writeHead(400, { 'content-type': 'text/plain' })
          .end(`SAML request refused: ${String(error)}`),
    );
  });

  return idp;
}

/**
 * samlify's login Response template with an AuthnStatement and the user's attributes (one
 * Attribute per name, one AttributeValue per value: samlify's own attribute templates hold a
 * single value), its placeholders filled by samlify (which escapes the values).
 */
function loginResponse(
  template: string,
  p: {
    acs: string;
    recipient: string;
    audience: string;
    issuer: string;
    inResponseTo: string;
    nameId: string;
    attributes: Record<string, string[]>;
  },
) {
  const now = new Date();
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const newId = () => `_${randomBytes(16).toString('hex')}`;
  const id = newId();
  const values: Record<string, string> = {
    ID: id,
    AssertionID: newId(),
    Destination: p.acs,
    Audience: p.audience,
    SubjectRecipient: p.recipient,
    Issuer: p.issuer,
    IssueInstant: at(0),
    StatusCode: samlify.Constants.StatusCode.Success,
    ConditionsNotBefore: at(-60_000),
    ConditionsNotOnOrAfter: at(300_000),
    SubjectConfirmationDataNotOnOrAfter: at(300_000),
    NameIDFormat: nameIdFormat,
    NameID: p.nameId,
    InResponseTo: p.inResponseTo,
    AuthnInstant: at(0),
    SessionIndex: newId(),
  };
  const attributes = Object.entries(p.attributes)
    .map(([name, list], i) => {
      values[`attrName${i}`] = name;
      const attributeValues = list.map((value, j) => {
        values[`attr${i}Value${j}`] = value;
        return `<saml:AttributeValue xsi:type="xs:string">{attr${i}Value${j}}</saml:AttributeValue>`;
      });
      return `<saml:Attribute Name="{attrName${i}}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${attributeValues.join('')}</saml:Attribute>`;
    })
    .join('');
  const filled = template
    .replace(
      '{AuthnStatement}',
      '<saml:AuthnStatement AuthnInstant="{AuthnInstant}" SessionIndex="{SessionIndex}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>',
    )
    .replace(
      '{AttributeStatement}',
      attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '',
    );
  return { id, context: samlify.SamlLib.replaceTagsByValue(filled, values) };
}

const escapeAttr = (v: string) =>
  v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
