import { z } from 'zod';
import { assertSafeUrl, ProviderError } from './provider-http.js';

const tokenSchema = z.union([
  z.object({ access_token: z.string(), token_type: z.string() }),
  z.object({ error: z.string(), error_description: z.string().optional() }),
]);
const userSchema = z.object({ login: z.string() });
const teamsSchema = z.array(
  z.object({ slug: z.string(), organization: z.object({ login: z.string() }) }),
);

const requestTimeoutMs = 10_000;
/** A person in more teams than this (100 a page) is read up to here; the rest is ignored. */
const maxTeamPages = 10;

export interface GithubEndpoints {
  /** `https://github.com`, or a GitHub Enterprise Server. */
  endpointUrl: string;
  /** `https://api.github.com`, or the server's `/api/v3`. */
  apiEndpointUrl: string;
}

export interface GithubTeam {
  organization: string;
  team: string;
}

/**
 * GitHub's OAuth web flow and the two API calls a sign-in needs (`/user`, `/user/teams`). The
 * access token is used for these calls only and never stored.
 */
export class GithubClient {
  authorizationUrl(
    endpoints: GithubEndpoints,
    params: { clientId: string; redirectUri: string; state: string; codeChallenge: string },
  ): string {
    const url = new URL(`${trim(endpoints.endpointUrl)}/login/oauth/authorize`);
    url.searchParams.set('client_id', params.clientId);
    url.searchParams.set('redirect_uri', params.redirectUri);
    // read:org lets /user/teams list the teams of organizations that restrict third-party access.
    url.searchParams.set('scope', 'read:org');
    url.searchParams.set('state', params.state);
    url.searchParams.set('code_challenge', params.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }

  async exchange(
    endpoints: GithubEndpoints,
    params: {
      clientId: string;
      clientSecret: string;
      code: string;
      redirectUri: string;
      codeVerifier: string;
    },
  ): Promise<string> {
    const url = `${trim(endpoints.endpointUrl)}/login/oauth/access_token`;
    assertSafeUrl(url);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        client_id: params.clientId,
        client_secret: params.clientSecret,
        code: params.code,
        redirect_uri: params.redirectUri,
        code_verifier: params.codeVerifier,
      }),
      redirect: 'error',
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    if (!response.ok) throw new ProviderError(`GitHub token exchange: ${response.status}`);
    const body = tokenSchema.parse(await response.json());
    if ('error' in body) throw new ProviderError(`GitHub token exchange: ${body.error}`);
    return body.access_token;
  }

  async user(endpoints: GithubEndpoints, token: string): Promise<string> {
    const { body } = await this.api(`${trim(endpoints.apiEndpointUrl)}/user`, token);
    return userSchema.parse(body).login;
  }

  async teams(endpoints: GithubEndpoints, token: string): Promise<GithubTeam[]> {
    const teams: GithubTeam[] = [];
    let next: string | null = `${trim(endpoints.apiEndpointUrl)}/user/teams?per_page=100`;
    for (let page = 0; next && page < maxTeamPages; page++) {
      const { body, link } = await this.api(next, token);
      for (const team of teamsSchema.parse(body)) {
        teams.push({ organization: team.organization.login, team: team.slug });
      }
      next = nextPage(link, endpoints.apiEndpointUrl);
    }
    return teams;
  }

  private async api(url: string, token: string) {
    assertSafeUrl(url);
    const response = await fetch(url, {
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${token}`,
        'x-github-api-version': '2022-11-28',
      },
      redirect: 'error',
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    if (!response.ok) throw new ProviderError(`GitHub API ${url}: ${response.status}`);
    return { body: (await response.json()) as unknown, link: response.headers.get('link') };
  }
}

/** The `rel="next"` page of a Link header, only on the same API host (the token goes along). */
function nextPage(link: string | null, api: string): string | null {
  const match = link ? /<([^>]+)>;\s*rel="next"/.exec(link) : null;
  if (!match?.[1]) return null;
  const next = new URL(match[1]);
  return next.origin === new URL(api).origin ? next.toString() : null;
}

const trim = (url: string) => url.replace(/\/+$/, '');
