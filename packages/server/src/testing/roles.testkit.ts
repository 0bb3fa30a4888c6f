import { hostActor } from '../access-control/access/actor.js';
import type { TestApp } from './app-harness.testkit.js';

/** Creates a role as the host's administrator would (`postern create`), from its spec. */
export function createRole(app: TestApp, name: string, spec: object) {
  return app.services.roles.create(
    JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec }),
    hostActor('test'),
  );
}

/** A role that grants nothing and asks for an MFA check before each session. */
export const createSessionMfaRole = (app: TestApp, name = 'checked') =>
  createRole(app, name, { options: { require_session_mfa: true } });
