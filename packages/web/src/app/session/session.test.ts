import { describe, expect, it } from 'vitest';
import { readStoredToken } from '../../api/credentials';
import { takeBearerFromMeta } from './bearerMeta';
import { isTokenValid, startSession, type SessionEnv } from './session';

const now = 1_700_000_000_000;

function pageWithBearer(content: string | null): Document {
  const doc = document.implementation.createHTMLDocument('page');
  if (content !== null) {
    const meta = doc.createElement('meta');
    meta.name = 'grv_bearer_token';
    meta.content = content;
    doc.head.append(meta);
  }
  return doc;
}

const base64Json = (value: unknown) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(value))));

const loginResponse = {
  type: 'bearer',
  token: 'tok-1',
  expires_in: 600,
  sessionExpires: '2030-01-01T00:00:00Z',
  sessionInactiveTimeout: 900000,
};

const env = (doc: Document, at = now): SessionEnv => ({
  doc,
  storage: localStorage,
  now: () => at,
});

describe('bearer meta tag', () => {
  it('maps the login response, and removes the tag from the DOM', () => {
    const doc = pageWithBearer(base64Json(loginResponse));
    expect(takeBearerFromMeta(doc, now)).toEqual({
      accessToken: 'tok-1',
      expiresIn: 600,
      created: now,
      sessionExpires: '2030-01-01T00:00:00Z',
      sessionInactiveTimeout: 900000,
    });
    expect(doc.querySelector('meta[name="grv_bearer_token"]')).toBeNull();
  });

  it('defaults a missing inactivity timeout to 0', () => {
    const { sessionInactiveTimeout: _omit, ...rest } = loginResponse;
    expect(takeBearerFromMeta(pageWithBearer(base64Json(rest)), now)?.sessionInactiveTimeout).toBe(
      0,
    );
  });

  it.each([
    ['absent', null],
    ['empty', ''],
    ['the unfilled placeholder', '__POSTERN_BEARER_TOKEN__'],
    ['not JSON', btoa('nope')],
    ['JSON without a token', base64Json({ type: 'bearer' })],
  ])('yields nothing when %s', (_label, content) => {
    const doc = pageWithBearer(content);
    expect(takeBearerFromMeta(doc, now)).toBeNull();
    expect(doc.querySelector('meta[name="grv_bearer_token"]')).toBeNull();
  });
});

describe('startSession', () => {
  it('stores the token from the page under grv_teleport_token', () => {
    const token = startSession(env(pageWithBearer(base64Json(loginResponse))));
    expect(token?.accessToken).toBe('tok-1');
    expect(readStoredToken()).toEqual(token);
  });

  it('falls back to a stored token that is still valid', () => {
    startSession(env(pageWithBearer(base64Json(loginResponse))));
    const later = startSession(env(pageWithBearer(''), now + 599_000));
    expect(later?.accessToken).toBe('tok-1');
  });

  it('keeps a token another tab stored after this page was requested (it is newer)', () => {
    const newer = {
      accessToken: 'tok-renewed-elsewhere',
      expiresIn: 600,
      created: now + 500,
      sessionExpires: '',
      sessionInactiveTimeout: 0,
    };
    localStorage.setItem('grv_teleport_token', JSON.stringify(newer));
    const doc = pageWithBearer(base64Json(loginResponse));
    const token = startSession({ ...env(doc, now + 1000), pageStart: now });
    expect(token?.accessToken).toBe('tok-renewed-elsewhere');
    expect(readStoredToken()).toEqual(newer);
    expect(doc.querySelector('meta[name="grv_bearer_token"]')).toBeNull();
  });

  it('replaces a token stored before this page was requested', () => {
    const older = { accessToken: 'tok-old', expiresIn: 600, created: now - 1 };
    localStorage.setItem(
      'grv_teleport_token',
      JSON.stringify({ ...older, sessionExpires: '', sessionInactiveTimeout: 0 }),
    );
    const doc = pageWithBearer(base64Json(loginResponse));
    expect(startSession({ ...env(doc), pageStart: now })?.accessToken).toBe('tok-1');
  });

  it('clears an expired token and reports no session', () => {
    startSession(env(pageWithBearer(base64Json(loginResponse))));
    expect(startSession(env(pageWithBearer(''), now + 600_000))).toBeNull();
    expect(localStorage.getItem('grv_teleport_token')).toBeNull();
  });

  it('reports no session without any token', () => {
    expect(startSession(env(pageWithBearer(null)))).toBeNull();
  });

  it('a new session (any sign-in) drops the message of a lock that ended an older one', () => {
    localStorage.setItem('grv_teleport_locked_notice', 'under investigation');
    expect(startSession(env(pageWithBearer(null)))).toBeNull();
    expect(localStorage.getItem('grv_teleport_locked_notice')).toBe('under investigation');
    startSession(env(pageWithBearer(base64Json(loginResponse))));
    expect(localStorage.getItem('grv_teleport_locked_notice')).toBeNull();
  });

  it('a valid token has lifetime left', () => {
    const token = {
      accessToken: 't',
      expiresIn: 10,
      created: now,
      sessionExpires: '',
      sessionInactiveTimeout: 0,
    };
    expect(isTokenValid(token, now + 9_999)).toBe(true);
    expect(isTokenValid(token, now + 10_000)).toBe(false);
    expect(isTokenValid(null, now)).toBe(false);
  });
});
