import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * About 49,000 of the most used passwords (zxcvbn-ts's common list, shipped inside the npm package,
 * so nothing is fetched at run time). Loaded once, on first use, into a set of lower-case entries.
 */
let common: Set<string> | undefined;

export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common'].map((entry) => entry.toLowerCase()));
  return common.has(password.toLowerCase());
}
