/** One input value of a scalar field checked and converted to what its column stores. */
import type { ErrorCollector } from '../core/errors.js';
import { choiceSet } from './registry.js';
import type { FieldDefinition } from '../core/types.js';

export function describe(value: unknown): string {
  return JSON.stringify(value);
}

/** Validates one input value of a scalar field; returns the column value or records an error. */
export function scalarValue(f: FieldDefinition, value: unknown, errs: ErrorCollector): unknown {
  const fail = (message: string) => { errs.add(f.name, message); return undefined; };
  if (value === null) {
    if (f.type === 'choice' && f.blank) return '';
    return f.nullable ? null : fail('This field may not be null.');
  }
  switch (f.type) {
    case 'string': case 'text': case 'slug': case 'color': case 'mac': case 'password': {
      if (typeof value !== 'string' && typeof value !== 'number') return fail('Not a valid string.');
      let s = String(value);
      if (f.type !== 'text' && f.type !== 'password') s = s.trim();
      if (s === '') {
        if (f.required) return fail('This field may not be blank.');
        return f.nullable ? null : '';
      }
      if (f.maxLength && s.length > f.maxLength) return fail(`Ensure this field has no more than ${f.maxLength} characters.`);
      if (f.type === 'slug' && !/^[-a-zA-Z0-9_]+$/.test(s)) return fail('Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.');
      if (f.type === 'color' && !/^[0-9a-f]{6}$/.test(s)) return fail('Enter a valid hexadecimal RGB color code.');
      if (f.type === 'mac') {
        const hex = s.replace(/[^0-9a-fA-F]/g, '');
        if (hex.length !== 12 || !/^[0-9a-fA-F]{2}([-:.]?[0-9a-fA-F]{2}){5}$|^[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}$/.test(s)) return fail(`'${s}' is not a valid MAC address.`);
        s = hex.toUpperCase().match(/../g)!.join(':');
      }
      if (f.pattern && !new RegExp(f.pattern).test(s)) return fail('Enter a valid value.');
      return s;
    }
    case 'integer': {
      const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n)) return fail('A valid integer is required.');
      // A string of digits may be beyond what JavaScript counts exactly (and the column holds).
      if (!Number.isSafeInteger(n)) return fail(`Ensure this value is between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}.`);
      if (f.minValue !== undefined && n < f.minValue) return fail(`Ensure this value is greater than or equal to ${f.minValue}.`);
      if (f.maxValue !== undefined && n > f.maxValue) return fail(`Ensure this value is less than or equal to ${f.maxValue}.`);
      return n;
    }
    case 'decimal': {
      const n = typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return fail('A valid number is required.');
      if (f.minValue !== undefined && n < f.minValue) return fail(`Ensure this value is greater than or equal to ${f.minValue}.`);
      if (f.maxValue !== undefined && n > f.maxValue) return fail(`Ensure this value is less than or equal to ${f.maxValue}.`);
      if (f.decimalPlaces !== undefined && Math.round(n * 10 ** f.decimalPlaces) / 10 ** f.decimalPlaces !== n) return fail(`Ensure that there are no more than ${f.decimalPlaces} decimal places.`);
      if (f.maxDigits !== undefined && f.decimalPlaces !== undefined && Math.abs(n) >= 10 ** (f.maxDigits - f.decimalPlaces)) return fail(`Ensure that there are no more than ${f.maxDigits - f.decimalPlaces} digits before the decimal point.`);
      return n;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      if (value === 1 || value === 0) return value === 1;
      if (typeof value === 'string' && /^(true|false|1|0)$/i.test(value)) return /^(true|1)$/i.test(value);
      return fail('Must be a valid boolean.');
    }
    case 'date': {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) return fail('Date has wrong format. Use one of these formats instead: YYYY-MM-DD.');
      return value;
    }
    case 'datetime': {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value)) || !/^\d{4}-\d{2}-\d{2}/.test(value)) return fail('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].');
      return new Date(value).toISOString();
    }
    case 'json': return JSON.stringify(value);
    case 'choice': {
      const set = choiceSet(f.choices!);
      let v: unknown = value;
      if (set.integer && typeof v === 'string' && /^\d+$/.test(v)) v = Number(v);
      if (v === '' && f.blank) return '';
      if (typeof v === 'object') return fail(`${describe(value)} is not a valid choice.`);
      if (!set.choices.some((c) => c.value === v)) return fail(`${String(value)} is not a valid choice.`);
      return v;
    }
    default: return value;
  }
}
