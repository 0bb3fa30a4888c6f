import { pageLocation } from '../../lib/pageLocation';
import { writeLastActive } from './storage';

/**
 * The end of every successful sign-in (password, key, passkey, invite, reset): a full page load
 * of the target, so the server answers with the bearer meta tag for the new session cookie. The
 * response body of the sign-in call is not used. Activity is recorded first, so the idle check at
 * the start of the new session never judges it by a timestamp left from an older one.
 */
export function finishSignIn(target: string, storage: Storage = localStorage, now = Date.now()) {
  writeLastActive(storage, now);
  pageLocation.assign(target);
}
