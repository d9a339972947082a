/**
 * fast-check arbitraries for hostile requests, built from the registry alone: every model the schema
 * defines (including ones added later) gets query strings from its own filters and lookups, and
 * bodies from its own fields, each field given values of the wrong type, out of range, malformed,
 * huge or deeply nested.
 */
import fc from 'fast-check';
import { LOOKUPS, lookupFamily } from '../../runtime/data/filters.js';
import type { FieldDefinition, ModelEntry } from '../../runtime/core/types.js';

/** Values that break parsers: numbers beyond every range, malformed networks, odd text. */
const NASTY_TEXT = [
  '', ' ', 'null', 'None', 'true', 'False', '0', '-1', '1.5', '1e400', 'NaN', 'Infinity',
  '99999999999999999999', '-99999999999999999999', '2147483648', '9007199254740993', '4294967296',
  '10.0.0.0/33', '10.0.0.256/24', '::g', '2001:db8::/129', '1.2.3.4/', '/24', '10.0.0.0/-1', '0.0.0.0/0', '::/0',
  'abc', 'ABC', '%', '_', '\\', "'", '"', '\u0000', 'a\u0000b', '\ud800', '😀', 'ﬀ', '\u202e', '<script>', '../..', '${x}', '{{x}}',
  '2024-13-45', '2024-02-30T25:61:61Z', '0000-00-00', '9999-12-31T23:59:59.999999Z',
  '[]', '{}', '[1,2]', 'a,b', 'a+b', ' padded ', 'x'.repeat(300),
];

export const nastyText = fc.oneof(
  fc.constantFrom(...NASTY_TEXT),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double().map(String),
  fc.tuple(fc.ipV4(), fc.integer({ min: -1, max: 40 })).map(([ip, length]) => `${ip}/${length}`),
  fc.ipV6(),
);

/** A value of a random JSON type, sometimes huge or deep. */
export const nastyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 2 ** 31, 2 ** 53, 1e300, -1e300, '', [], {}, [null], { id: null }) },
  { weight: 3, arbitrary: nastyText },
  { weight: 2, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 31 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(100_000), 'é'.repeat(30_000)) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: 60 }).map((depth) => nest(depth)) },
);

function nest(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** A plausible but wrong value for a field of a given type. */
function wrongFor(f: FieldDefinition): fc.Arbitrary<unknown> {
  switch (f.type) {
    case 'integer': case 'decimal':
      return fc.oneof(fc.constantFrom<unknown>('12', 'twelve', 1.5, -1, 2 ** 31, 2 ** 53 + 2, 1e308, true, [], {}), fc.integer(), fc.double());
    case 'boolean': return fc.constantFrom<unknown>('yes', 'maybe', 2, 0, 'true', null, [], {});
    case 'choice': return fc.oneof(fc.constantFrom<unknown>('no-such-choice', 99999, '', null, [], { value: 'x' }, { value: null }), nastyText);
    case 'fk': return fc.oneof(fc.constantFrom<unknown>(0, -1, 2147483647, 2147483648, 99999999999, '99999999999', 1.5, 1e20, '1', 'abc', [], {}, { id: 'x' }, { id: 99999999999 }, { id: 1.5 }, { name: 5 }, { name: true }, { name: 'no-such' }, { slug: '\u0000' }, { no_such_field: 1 }, { tenant: { id: 99999999999 } }, { tenant: 'x' }), fc.integer(), fc.dictionary(fc.constantFrom('id', 'name', 'slug', 'status', 'latitude', 'vid', 'rd', 'asn', 'created', 'tenant', 'site', 'device', 'address', 'prefix', 'u_height', 'position'), nastyJson, { maxKeys: 2 }));
    case 'm2m': return fc.oneof(fc.constantFrom<unknown>(1, 'a', [0], [-1], [2147483648], [99999999999], [1.5], [null], [[]], [{}], [{ slug: 'nope' }], [{ id: 'x' }], [{ id: 99999999999 }]), fc.array(nastyJson, { maxLength: 5 }));
    case 'ip_prefix': case 'ip_address': return fc.oneof(fc.constantFrom<unknown>('10.0.0.0/33', '10.1.2.3', '::g/64', '2001:db8::1/129', '1.2.3.4/-1', '', 12, []), nastyText);
    case 'date': case 'datetime': return fc.constantFrom<unknown>('2024-13-45', 'yesterday', '2024-02-30', 20240101, '2024-01-01T99:00:00Z', '', []);
    case 'json': return nastyJson;
    case 'color': return fc.constantFrom<unknown>('gggggg', '#ffffff', 'fff', 123456, '');
    case 'mac': return fc.constantFrom<unknown>('zz:zz:zz:zz:zz:zz', '00:11:22:33:44', 12, '');
    case 'generic_fk': return fc.constantFrom<unknown>({ id: 1 }, 1, 'dcim.site');
    default: return nastyJson;
  }
}

/** Fields a client may write, by the names the API uses. */
function writableNames(entry: ModelEntry): { name: string; field: FieldDefinition }[] {
  const out: { name: string; field: FieldDefinition }[] = [];
  for (const f of Object.values(entry.definition.fields)) {
    if (f.readOnly || f.type === 'computed') continue;
    if (f.type === 'generic_fk') {
      out.push({ name: `${f.name}_type`, field: { ...f, type: 'choice' } as FieldDefinition });
      out.push({ name: `${f.name}_id`, field: { ...f, type: 'fk' } as FieldDefinition });
    } else out.push({ name: f.name, field: f });
  }
  if (entry.definition.tags) out.push({ name: 'tags', field: { type: 'm2m' } as FieldDefinition });
  if (entry.definition.customFields) out.push({ name: 'custom_fields', field: { type: 'json' } as FieldDefinition });
  return out;
}

/** One object for a write: a valid one with some fields replaced by wrong values, or junk. */
export function objectFor(entry: ModelEntry, valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const fields = writableNames(entry);
  const mutated = fc.array(fc.constantFrom(...fields), { minLength: 1, maxLength: 3 })
    .chain((picked) => fc.tuple(...picked.map((p) => wrongFor(p.field).map((v) => [p.name, v] as const))))
    .map((pairs) => ({ ...valid, ...Object.fromEntries(pairs) }));
  return fc.oneof(
    { weight: 6, arbitrary: mutated },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...fields.map((f) => f.name), 'id', '__proto__', 'constructor'), nastyJson, { maxKeys: 4 }) },
    { weight: 1, arbitrary: nastyJson },
  );
}

/** A raw request body: JSON of objects, a list of them, or bytes that are not JSON at all. */
export function bodyFor(entry: ModelEntry, valid: Record<string, unknown>): fc.Arbitrary<string> {
  const one = objectFor(entry, valid);
  return fc.oneof(
    { weight: 6, arbitrary: one.map((o) => JSON.stringify(o)) },
    { weight: 3, arbitrary: fc.array(one, { maxLength: 4 }).map((list) => JSON.stringify(list)) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '[1,', '{"a":}', 'null', '"x"', '1e999999', '[' .repeat(5000), '{"a":'.repeat(200) + '1' + '}'.repeat(200), '\u0000', '\uFEFF{}', '{"name": "\\ud800"}', '{"id": 1, "id": 2}') },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  );
}

/** A query string of the model's filters (with valid and invalid lookups), control parameters and junk. */
export function queryFor(entry: ModelEntry, customFields: string[]): fc.Arbitrary<string> {
  const names = Object.keys(entry.filters);
  const filterName = fc.constantFrom(...names).chain((name) => {
    const lookups = LOOKUPS[lookupFamily(entry.filters[name])];
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant(name) },
      { weight: 2, arbitrary: lookups.length ? fc.constantFrom(...lookups).map((l) => `${name}__${l}`) : fc.constant(name) },
      { weight: 1, arbitrary: fc.constantFrom('nope', 'gte', 'in', '', 'n__n').map((l) => `${name}__${l}`) },
    );
  });
  const cf = customFields.flatMap((name) => [`cf_${name}`, `cf_${name}__gt`, `cf_${name}__ic`, `cf_${name}__empty`, `cf_${name}__n`]);
  const control = fc.constantFrom('limit', 'offset', 'ordering', 'brief', 'exclude', 'format', 'q', 'tag', 'no_such_filter', '', '__', 'id__in', 'cf_nope', ...cf);
  const pair = fc.tuple(fc.oneof({ weight: 4, arbitrary: filterName }, { weight: 1, arbitrary: control }), nastyText);
  return fc.array(pair, { maxLength: 6 }).chain((pairs) => fc.constantFrom(1, 1, 1, 2, 30).map((repeat) => {
    const all = repeat > 1 && pairs.length ? [...pairs, ...Array.from({ length: repeat }, () => pairs[0])] : pairs;
    return new URLSearchParams(all.map(([k, v]) => [k, v])).toString();
  }));
}

/** Headers a hostile client might send. */
export const junkHeaders: fc.Arbitrary<Record<string, string>> = fc.record({
  host: fc.constantFrom('', '[::g]', 'a b', '127.0.0.1:99999', 'x/y', 'example.com', '[::1]:8000', 'ümlaut.example', 'h'.repeat(300)),
  'x-forwarded-host': fc.constantFrom('evil.example', '[::g]', ''),
  'x-forwarded-proto': fc.constantFrom('https', 'gopher', 'a b', ''),
  'content-type': fc.constantFrom('application/json', 'application/json;', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', ''),
  authorization: fc.constantFrom('Token', 'Token ' + 'a'.repeat(40), 'Token zz', 'Bearer x', 'Token a b', 'Basic Zm9vOmJhcg=='),
  accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/json; version=9.9', ''),
  cookie: fc.constantFrom('sessionid=x.y', 'sessionid=' + 'a'.repeat(43) + '.sig', 'csrftoken=x', ''),
}, { requiredKeys: [] });
