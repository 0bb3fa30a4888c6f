/**
 * How long a started sign-in lasts, both its state kept on the server and the browser's state
 * cookie: long enough to type a password and pass a second factor at the provider, no longer.
 */
export const stateTtlMs = 10 * 60 * 1000;
