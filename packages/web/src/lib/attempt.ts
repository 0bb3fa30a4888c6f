/**
 * What a pure view needs to know about data it waits for. Views take an Attempt, so they never
 * depend on the data library; pages map their query result into one.
 */
export type Attempt<T> =
  { status: 'loading' } | { status: 'error'; message: string } | { status: 'success'; data: T };

interface QueryLike<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
}

export function attemptOf<T>(query: QueryLike<T>): Attempt<T> {
  if (query.isError) {
    const message = query.error instanceof Error ? query.error.message : String(query.error);
    return { status: 'error', message };
  }
  if (query.isPending || query.data === undefined) return { status: 'loading' };
  return { status: 'success', data: query.data };
}

/** The same attempt with its data reshaped (loading and errors pass through). */
export function mapAttempt<T, U>(attempt: Attempt<T>, map: (data: T) => U): Attempt<U> {
  return attempt.status === 'success' ? { status: 'success', data: map(attempt.data) } : attempt;
}
