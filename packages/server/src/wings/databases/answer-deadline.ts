/**
 * A promise that rejects with "no answer within N s" after `timeoutMs`, for racing a database's
 * answer against; `clear` stops its timer once the answer (or a failure) came.
 */
export function answerDeadline(timeoutMs: number): { deadline: Promise<never>; clear: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  // Raced and cleared by its users; unraced, its rejection is nobody's news.
  deadline.catch(() => undefined);
  return { deadline, clear: () => clearTimeout(timer) };
}
