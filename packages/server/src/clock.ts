/** Milliseconds since the epoch. Services take one so tests can move time without waiting. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
