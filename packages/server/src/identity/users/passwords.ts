import { minPasswordLength } from '@postern/contracts';
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { badParameter } from '../../errors.js';
import { isCommonPassword } from './common-passwords.js';

/** OWASP's argon2id parameters: 19 MiB of memory, 2 passes, 1 lane. */
const argon2Options = {
  // Algorithm is a const enum, which isolated modules cannot read: 2 is Argon2id.
  algorithm: 2 as Algorithm,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/** Longer than anyone types; bounds the work a single request can ask of argon2. */
const maxPasswordLength = 512;

/** Hashes and checks passwords; one instance per app, so tests can watch its calls. */
export class PasswordHasher {
  private dummy: Promise<string> | undefined;

  hash(password: string): Promise<string> {
    return hash(password, argon2Options);
  }

  /**
   * Checks a password against a stored hash. Without one (an unknown user, or a passwordless
   * account) it still runs argon2 against a dummy hash, so the answer takes the same time and a
   * caller cannot tell which names exist.
   */
  async verify(storedHash: string | undefined, password: string): Promise<boolean> {
    const target = storedHash ?? (await this.dummyHash());
    const matches = await verify(target, password).catch(() => false);
    return storedHash !== undefined && matches;
  }

  dummyHash(): Promise<string> {
    this.dummy ??= this.hash('postern-dummy-password-for-timing');
    return this.dummy;
  }
}

/**
 * Passwords travel as base64 of their UTF-8 text (spec §5). Anything else is a 400, never a
 * silent mis-decode: the text must be canonical base64 and valid UTF-8.
 */
export function decodePassword(encoded: string, field = 'password'): string {
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.toString('base64') !== encoded) {
    throw badParameter(`${field} must be base64 of the UTF-8 text`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badParameter(`${field} must be base64 of the UTF-8 text`);
  }
}

/** The rules for a new password: long enough and not on the common-passwords list. */
export function checkNewPassword(password: string): void {
  const length = [...password].length;
  if (length < minPasswordLength) {
    throw badParameter(`password must be at least ${minPasswordLength} characters long`);
  }
  if (length > maxPasswordLength) {
    throw badParameter(`password must be at most ${maxPasswordLength} characters long`);
  }
  if (isCommonPassword(password)) {
    throw badParameter('password is too common: choose one that is not on lists of used passwords');
  }
}
