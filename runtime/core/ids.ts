/**
 * Object ids: 32-bit integer columns (PostgreSQL `integer`), so a number beyond them can name no
 * object. Checked before any query, since PostgreSQL refuses to compare such a number with an id
 * column at all (an error, not an empty result).
 */

/** Largest value of an id column (and of integer choices). */
export const MAX_ID = 2147483647;

/** The whole number `text` names when an id column can hold it (0 included: it simply matches nothing), else null. */
export function idFromText(text: string): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n <= MAX_ID ? n : null;
}

/** Can `n` be the id of a row? */
export function isStorableId(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 1 && n <= MAX_ID;
}
