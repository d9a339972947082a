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

/** A column's value once written: the request's, else the stored one. */
export function valueOf(item: WriteItem, column: string): unknown {
  return column in item.values ? item.values[column] : item.existing?.[column];
}

/** Whether the write sets `column` to an object other than the stored one (a new row: any object). */
export function setsAnother(item: WriteItem, column: string): boolean {
  const value = valueOf(item, column);
  return isSet(value) && (!item.existing || Number(item.existing[column]) !== Number(value));
}
