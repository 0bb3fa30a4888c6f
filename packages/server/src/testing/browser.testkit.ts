import type { TestApp } from './app-harness.testkit.js';

export interface Page {
  url: string;
  status: number;
  body: string;
}

/**
 * A browser for sign-in flows that cross origins: requests to the proxy's public origin go to
 * the test app through `inject` (nothing listens), everything else goes out with fetch. Keeps a
 * cookie jar per host (paths and expiry beyond deletion are ignored: flows here are short) and
 * follows redirects by hand, so a test can stop at any hop.
 */
export class TestBrowser {
  readonly jar = new Map<string, Map<string, string>>();

  constructor(private readonly app: TestApp) {}

  /** Follows redirects from `url` until a page answers, or until `stopAt` says so. */
  async go(url: string, stopAt?: (url: string) => boolean): Promise<Page> {
    let current = new URL(url, this.app.origin).toString();
    for (let hops = 0; hops < 20; hops++) {
      if (stopAt?.(current)) return { url: current, status: 0, body: '' };
      const page = await this.request('GET', current);
      const location = page.location;
      if (!location || page.status < 300 || page.status >= 400) return page;
      current = new URL(location, current).toString();
    }
    throw new Error('too many redirects');
  }

  /** Submits a form, then follows where it leads. */
  async submit(url: string, form: Record<string, string>, stopAt?: (url: string) => boolean) {
    const page = await this.request('POST', url, new URLSearchParams(form).toString());
    if (!page.location) return page;
    return this.go(new URL(page.location, url).toString(), stopAt);
  }

  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name);
  }

  setCookie(host: string, name: string, value: string): void {
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    cookies.set(name, value);
    this.jar.set(host, cookies);
  }

  private async request(method: 'GET' | 'POST', url: string, form?: string) {
    const target = new URL(url);
    const cookie = [...(this.jar.get(target.host) ?? new Map<string, string>())]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
    const headers: Record<string, string> = cookie ? { cookie } : {};
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    let status: number;
    let body: string;
    let location: string | undefined;
    let setCookies: string[];
    if (target.origin === this.app.origin) {
      const res = await this.app.server.inject({
        method,
        url: target.pathname + target.search,
        headers,
        ...(form ? { payload: form } : {}),
      });
      status = res.statusCode;
      body = res.body;
      location = res.headers.location as string | undefined;
      const raw = res.headers['set-cookie'];
      setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    } else {
      const res = await fetch(url, { method, headers, body: form, redirect: 'manual' });
      status = res.status;
      body = await res.text();
      location = res.headers.get('location') ?? undefined;
      setCookies = res.headers.getSetCookie();
    }
    for (const line of setCookies) this.store(target.host, line);
    return { url, status, body, location };
  }

  private store(host: string, line: string) {
    const [pair = '', ...attributes] = line.split(';');
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    const gone =
      value === '' ||
      attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) ||
      attributes.some(
        (a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1] ?? '') < Date.now(),
      );
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    if (gone) cookies.delete(name);
    else cookies.set(name, value);
    this.jar.set(host, cookies);
  }
}
