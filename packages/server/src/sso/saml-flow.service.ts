import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { ssoPaths, type SamlConnector } from '@postern/contracts';
import type { RequestContext } from '../identity/auth/session-cookie.js';
import type { ConnectorsService } from '../access-control/connectors/connectors.service.js';
import { claimValues, globMatch, mapRoles, traitsFromClaims, type Claims } from './mapping.js';
import { ProviderError } from './provider-http.js';
import { safeRedirect } from './redirect.js';
import { samlIdpOf } from './saml-idp.js';
import type { SamlRequestStore } from './saml-requests.store.js';
import { forConnector, loginConnector, type SsoLanding, type SsoOutcome } from './sso-flow.js';
import { SsoLoginError } from './sso-login.service.js';
import { stateTtlMs } from './sso-state-ttl.js';
import type { ConsoleRequest, SsoStateStore } from './sso-state.store.js';

export interface SamlFlowDeps {
  connectors: ConnectorsService;
  states: SsoStateStore;
  requests: SamlRequestStore;
  land: SsoLanding;
  publicBase: () => string;
}

/**
 * SAML 2.0 web sign-on as a service provider, with node-saml: an AuthnRequest by the
 * HTTP-Redirect binding (RelayState = our state), the IdP's Response by HTTP-POST to the ACS.
 * node-saml checks the assertion's signature against the IdP's certificates, the audience, the
 * times and InResponseTo (one of our requests, answered once); we check that a bearer
 * confirmation names our ACS as its Recipient, which node-saml does not. The state is
 * single-use and bound to the browser by its cookie, like the other flows.
 */
export class SamlFlowService {
  constructor(private readonly deps: SamlFlowDeps) {}

  async begin(connectorName: string, redirectUrl: string | undefined, cli?: ConsoleRequest) {
    const connector = await this.connector(connectorName, 'login');
    const state = await this.deps.states.create({
      kind: 'saml',
      connector: connector.metadata.name,
      redirect: safeRedirect(redirectUrl, this.deps.publicBase()),
      ...(cli ? { console: cli } : {}),
    });
    const location = await (await this.saml(connector)).getAuthorizeUrlAsync(state, undefined, {});
    return { location, state };
  }

  /** The ACS: the POSTed `SAMLResponse` and `RelayState` for the connector in the path. */
  async complete(
    connectorName: string,
    body: { SAMLResponse?: string; RelayState?: string },
    stateCookie: string | undefined,
    ctx: RequestContext,
  ): Promise<SsoOutcome> {
    if (!body.RelayState || !stateCookie || body.RelayState !== stateCookie) {
      throw new SsoLoginError('the sign-in response does not match this browser: start again');
    }
    const state = await this.deps.states.consume(body.RelayState);
    if (!state || state.kind !== 'saml' || state.connector !== connectorName) {
      throw new SsoLoginError('the sign-in expired or was already used: start again');
    }
    if (!body.SAMLResponse) throw new SsoLoginError('the identity provider sent no response');
    const response = body.SAMLResponse;
    return forConnector(state.connector, async () => {
      const connector = await this.connector(state.connector, 'callback');
      const saml = await this.saml(connector);
      let attributes: Claims;
      let username: string;
      try {
        const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: response });
        if (!profile) throw new ProviderError('no profile in the response');
        // node-saml does not check the Recipient; the Web SSO profile wants it to be our ACS.
        const acs = this.spOptions(connector).callbackUrl;
        if (!bearerRecipients(profile.getAssertion?.()).includes(acs)) {
          throw new ProviderError(`the assertion's Recipient is not ${acs}`);
        }
        username = profile.nameID;
        attributes = (profile.attributes ?? {}) as Claims;
      } catch (error) {
        throw new ProviderError(`SAML response refused: ${(error as Error).message}`);
      }
      const roles = mapRoles(connector.spec.attributes_to_roles, (rule) =>
        claimValues(attributes, rule.name).some((value) => globMatch(rule.value, value)),
      );
      const traitRules = connector.spec.attributes_to_traits.map((r) => ({
        claim: r.name,
        trait: r.trait,
      }));
      const traits = traitsFromClaims(traitRules, attributes);
      return this.deps.land(
        { kind: 'saml', connector: connector.metadata.name, username, roles, traits },
        state,
        ctx,
      );
    });
  }

  /** This proxy's SP metadata for the connector, to give to the IdP. */
  async metadata(connectorName: string): Promise<string> {
    const connector = await this.connector(connectorName, 'login');
    const cert = connector.spec.signing_key_pair?.cert ?? null;
    const saml = new SAML({ ...this.spOptions(connector), idpCert: 'unused-for-metadata' });
    return saml.generateServiceProviderMetadata(null, cert);
  }

  private async saml(connector: SamlConnector): Promise<SAML> {
    const idp = await samlIdpOf(connector);
    return new SAML({ ...this.spOptions(connector), entryPoint: idp.sso, idpCert: idp.certs });
  }

  private spOptions(connector: SamlConnector) {
    const name = connector.metadata.name;
    const entityId =
      connector.spec.service_provider_issuer ??
      this.deps.publicBase() + ssoPaths.samlMetadata(name);
    const key = connector.spec.signing_key_pair?.private_key;
    return {
      callbackUrl: connector.spec.acs ?? this.deps.publicBase() + ssoPaths.samlAcs(name),
      issuer: entityId,
      audience: entityId,
      wantAssertionsSigned: true,
      // Many IdPs sign only the assertion; the assertion's signature is what is required.
      wantAuthnResponseSigned: false,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: stateTtlMs,
      cacheProvider: this.deps.requests,
      acceptedClockSkewMs: 60_000,
      identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
      disableRequestedAuthnContext: true,
      ...(key ? { privateKey: key, signatureAlgorithm: 'sha256' as const } : {}),
    };
  }

  private connector(name: string, stage: 'login' | 'callback'): Promise<SamlConnector> {
    return loginConnector(this.deps.connectors, 'saml', name, stage);
  }
}

interface ParsedNode {
  $?: Record<string, string>;
  [child: string]: unknown;
}

/**
 * The Recipients of the bearer SubjectConfirmations of an assertion, as node-saml parsed it
 * (`profile.getAssertion()`: xml2js, prefixes stripped, every child an array).
 */
function bearerRecipients(parsed: Record<string, unknown> | undefined): string[] {
  const children = (node: unknown, name: string): ParsedNode[] => {
    const value = (node as ParsedNode | undefined)?.[name];
    return Array.isArray(value) ? (value as ParsedNode[]) : [];
  };
  const assertion = (parsed as ParsedNode | undefined)?.Assertion;
  return children(assertion, 'Subject')
    .flatMap((subject) => children(subject, 'SubjectConfirmation'))
    .filter((c) => c.$?.Method === 'urn:oasis:names:tc:SAML:2.0:cm:bearer')
    .flatMap((c) => children(c, 'SubjectConfirmationData'))
    .map((data) => data.$?.Recipient)
    .filter((recipient): recipient is string => typeof recipient === 'string');
}
