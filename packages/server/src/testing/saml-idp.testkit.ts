import { randomBytes, webcrypto } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import * as x509 from '@peculiar/x509';
import { SignedXml } from 'xml-crypto';

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
  close(): Promise<void>;
}

const signingAlgorithm = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;

/**
 * A SAML 2.0 identity provider on loopback. It reads the SP's AuthnRequest from the
 * HTTP-Redirect binding (`GET /sso?SAMLRequest&RelayState`) and answers with the HTTP-POST
 * binding's auto-submitting form (a script posts it, as real IdPs do, so a browser goes on), holding a Response whose assertion is signed with XML-DSig
 * (xml-crypto, RSA-SHA256, exclusive c14n) for the user `signedInAs`. `GET /metadata` serves its
 * metadata. Assertions carry InResponseTo, the recipient, the audience (the SP's issuer) and a
 * five-minute validity, like a real IdP's.
 */
export async function startTestSamlIdp(options: {
  users: Record<string, SamlTestUser>;
  signedInAs: string;
}): Promise<TestSamlIdp> {
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
  const certBase64 = certificate.toString('base64');
  const privateKey = x509.PemConverter.encode(
    await webcrypto.subtle.exportKey('pkcs8', keys.privateKey),
    'PRIVATE KEY',
  );

  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const entityId = `${base}/metadata`;
  const metadataXml = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${certBase64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${base}/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;

  const idp: TestSamlIdp = {
    entityId,
    metadataXml,
    metadataUrl: entityId,
    cert,
    users: new Map(Object.entries(options.users)),
    signedInAs: options.signedInAs,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };

  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/metadata') {
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadataXml);
      return;
    }
    if (url.pathname !== '/sso') return void res.writeHead(404).end();
    const request = inflateRawSync(
      Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64'),
    ).toString('utf8');
    const id = /\sID="([^"]+)"/.exec(request)?.[1] ?? '';
    const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(request)?.[1] ?? '';
    const spIssuer = /<saml:Issuer[^>]*>([^<]+)<\/saml:Issuer>/.exec(request)?.[1] ?? '';
    const user = idp.users.get(idp.signedInAs);
    if (!user) return void res.writeHead(403).end('no such user');
    const xml = signedResponse({
      inResponseTo: id,
      acs,
      audience: spIssuer,
      issuer: entityId,
      nameId: idp.signedInAs,
      attributes: user.attributes,
      privateKey,
    });
    const form = `<form method="post" action="${acs}"><input type="hidden" name="SAMLResponse" value="${Buffer.from(xml).toString('base64')}"><input type="hidden" name="RelayState" value="${escapeAttr(url.searchParams.get('RelayState') ?? '')}"></form><script>document.forms[0].submit()</script>`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(form);
  });

  return idp;
}

/** A Response with one assertion, the assertion signed (enveloped signature after its Issuer). */
export function signedResponse(p: {
  inResponseTo: string;
  acs: string;
  audience: string;
  issuer: string;
  nameId: string;
  attributes: Record<string, string[]>;
  privateKey: string;
}): string {
  const now = new Date();
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const newId = () => `_${randomBytes(16).toString('hex')}`;
  const attributes = Object.entries(p.attributes)
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${escapeAttr(name)}">${values
          .map((v) => `<saml:AttributeValue>${escapeText(v)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('');
  const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${at(0)}" Destination="${p.acs}" InResponseTo="${p.inResponseTo}"><saml:Issuer>${p.issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status><saml:Assertion ID="${newId()}" Version="2.0" IssueInstant="${at(0)}"><saml:Issuer>${p.issuer}</saml:Issuer><saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${escapeText(p.nameId)}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${p.inResponseTo}" NotOnOrAfter="${at(300_000)}" Recipient="${p.acs}"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${at(-60_000)}" NotOnOrAfter="${at(300_000)}"><saml:AudienceRestriction><saml:Audience>${p.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${at(0)}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement>${attributes}</saml:AttributeStatement></saml:Assertion></samlp:Response>`;
  const signer = new SignedXml({
    privateKey: p.privateKey,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  });
  signer.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: [
      'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
      'http://www.w3.org/2001/10/xml-exc-c14n#',
    ],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signer.computeSignature(xml, {
    location: {
      reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']",
      action: 'after',
    },
  });
  return signer.getSignedXml();
}

const escapeText = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const escapeAttr = (v: string) => escapeText(v).replace(/"/g, '&quot;');
