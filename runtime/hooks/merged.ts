/** The values an element will have once written: the stored row with the request's changes on top. */
import type { Row, WriteItem } from '../data/registry.js';

export function merged(item: WriteItem): Row {
  return { ...(item.existing ?? {}), ...item.values };
}

/** Whether the request sets any of these columns (or creates the object). */
export function touches(item: WriteItem, ...columns: string[]): boolean {
  return !item.existing || columns.some((c) => c in item.values);
}

export const isSet = (v: unknown): boolean => v !== null && v !== undefined;
