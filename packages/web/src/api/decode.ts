/**
 * Checks a response against a contracts schema. Structural, so the console does not import zod
 * itself: any schema with `safeParse` fits.
 */
interface Decoder<T> {
  safeParse(
    value: unknown,
  ): { success: true; data: T } | { success: false; error: { message: string } };
}

export function decode<T>(schema: Decoder<T>, json: unknown, url: string): T {
  const result = schema.safeParse(json);
  if (!result.success) throw new Error(`Unexpected response from ${url}: ${result.error.message}`);
  return result.data;
}
