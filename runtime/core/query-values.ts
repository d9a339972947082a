/** Query-string values shared by filters and custom-field filters. */
import { errors } from './errors.js';

export function parseBoolean(param: string, value: string): boolean {
  const v = value.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw errors.badFilter(param, `'${value}' is not a valid boolean; use true or false.`);
}
