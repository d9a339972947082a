/**
 * Builds valid create data for any model from its schema alone: required scalars get unique values,
 * required relations get a freshly created target. The conformance suite uses it for every model.
 */
import { choiceSet, model } from '../runtime/data/registry.js';
import type { FieldDefinition, ModelEntry } from '../runtime/core/types.js';
import { asServed, expectStatus, listPath, type TestApp } from './helpers.js';

let seq = 0;

export function next(): number {
  return ++seq;
}

function scalar(entry: ModelEntry, f: FieldDefinition, n: number): unknown {
  const base = entry.definition.name.toLowerCase();
  switch (f.type) {
    case 'string': case 'text': return `${base}${f.pattern ? '_' : '-'}${f.name}${f.pattern ? '_' : '-'}${n}`.slice(0, f.maxLength ?? 200);
    case 'slug': return `${base}-${n}`.slice(0, f.maxLength ?? 100);
    case 'integer': return Math.min(f.maxValue ?? 1_000_000, (f.minValue ?? 0) + (n % 1000) + 1);
    case 'decimal': return f.minValue ?? 1;
    case 'boolean': return true;
    case 'choice': return choiceSet(f.choices!).choices[0].value;
    case 'color': return 'aa00ff';
    case 'mac': return `02:00:00:${[n >> 16, n >> 8, n].map((b) => (b & 255).toString(16).padStart(2, '0').toUpperCase()).join(':')}`;
    case 'password': return 'correct-horse-battery';
    case 'ip_prefix': return `10.${Math.floor(n / 250) % 250}.${n % 250}.0/24`;
    case 'ip_address': {
      // A model with two addresses (an IP range's start and end) gets two in a row, start first.
      const k = Object.values(entry.definition.fields).filter((x) => x.type === 'ip_address').indexOf(f);
      return `172.16.${Math.floor(n / 120) % 250}.${(n % 120) * 2 + 1 + k}/24`;
    }
    case 'date': return '2024-05-01';
    case 'datetime': return '2030-01-01T00:00:00.000Z';
    case 'json': return {};
    case 'm2m': return [];
    default: return null;
  }
}

/** Create data with every required field filled (relations created on the way). */
export async function inputFor(app: TestApp, entry: ModelEntry): Promise<Record<string, unknown>> {
  const n = next();
  const input: Record<string, unknown> = {};
  for (const f of Object.values(entry.definition.fields)) {
    // The lookup field (a device's name, say) is filled too, so filters by it have something to find.
    // Fields with a schema example are filled too (a webhook needs at least one event type).
    if ((!f.required && f.name !== entry.definition.lookup && f.example === undefined) || (f.readOnly && f.example === undefined)) continue;
    // A relation with an example is filled with a new related object (a service needs a device).
    // A relation whose target must share relations with this object (`same:`) gets a target that does.
    // An fk example that is an object gives attributes of the new target (a device bay's device has a parent type).
    if (f.type === 'fk') input[f.name] = (await createRelated(app, f, input)).id;
    else if (f.type === 'generic_fk') {
      // A required generic relation points at a fresh object of its example type, else of its simplest target type.
      const [type, target] = Object.entries(f.types!).find(([ct]) => ct === f.example) ?? Object.entries(f.types!).sort(([, a], [, b]) => requiredRelations(model(a)) - requiredRelations(model(b)))[0];
      input[f.typeKey!] = type;
      input[`${f.name}_id`] = (await createObject(app, model(target))).id;
    }
    else if (f.type === 'token_key') continue;
    else input[f.name] = f.example !== undefined ? await materialize(app, f.example) : scalar(entry, f, n);
  }
  // A user name must follow Django's username rules.
  if (entry.definition.fields.username) input.username = `user${n}`;
  return input;
}

/** A new target for relation `f` of an object being built from `input`, as the schema wants it (example, same:). */
export async function createRelated(app: TestApp, f: FieldDefinition, input: Record<string, unknown>): Promise<any> {
  const shared = Object.fromEntries((f.same ?? []).filter((s) => input[s] != null).map((s) => [s, input[s]]));
  const wanted = f.example !== null && typeof f.example === 'object' ? await exampleValues(app, model(f.to!), f.example as Record<string, unknown>) : {};
  return createObject(app, model(f.to!), { ...wanted, ...shared });
}

/** Attribute overrides from a schema example: a nested object stands for a new related object with those attributes. */
async function exampleValues(app: TestApp, entry: ModelEntry, example: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(example)) {
    const f = entry.definition.fields[name];
    out[name] = f?.type === 'fk' && value !== null && typeof value === 'object'
      ? (await createObject(app, model(f.to!), await exampleValues(app, model(f.to!), value as Record<string, unknown>))).id
      : value;
  }
  return out;
}

/** An example with `{ $new: Model }` in it gets the id of a fresh object of that model there (a cable's ends). */
async function materialize(app: TestApp, example: unknown): Promise<unknown> {
  if (Array.isArray(example)) return Promise.all(example.map((e) => materialize(app, e)));
  if (example !== null && typeof example === 'object') {
    const spec = example as Record<string, unknown>;
    if (typeof spec.$new === 'string') return (await createObject(app, model(spec.$new))).id;
    return Object.fromEntries(await Promise.all(Object.entries(spec).map(async ([k, v]) => [k, await materialize(app, v)])));
  }
  return example;
}

function requiredRelations(entry: ModelEntry): number {
  return Object.values(entry.definition.fields).filter((f) => f.required && (f.type === 'fk' || f.type === 'generic_fk')).length;
}

export async function createObject(app: TestApp, entry: ModelEntry, extra: Record<string, unknown> = {}): Promise<any> {
  const input = { ...(await inputFor(app, asServed(entry))), ...extra };
  const reply = await app.api('POST', listPath(entry), input);
  expectStatus(reply, 201, `create ${entry.definition.name} with ${JSON.stringify(input)}:`);
  return reply.body;
}

/** A writable, optional text field whose change a test can observe. */
export function editableText(entry: ModelEntry): FieldDefinition | undefined {
  // Room for the test's own values ("changed by 0.123…"): a short field (a chassis domain) is passed over.
  const fields = Object.values(entry.definition.fields).filter((f) => (f.maxLength ?? Infinity) >= 50);
  return fields.find((f) => (f.type === 'string' || f.type === 'text') && !f.required && !f.unique && !f.readOnly && !f.pattern && !f.nullable)
    ?? fields.find((f) => f.type === 'string' && !f.required && !f.unique && !f.readOnly && !f.pattern);
}

/** A string field set on every created object (used to exercise the string lookups). */
export function requiredText(entry: ModelEntry): FieldDefinition | undefined {
  return Object.values(entry.definition.fields).find((f) => (f.type === 'string' || f.type === 'slug') && f.required && entry.filters[f.name]);
}

/**
 * A stored row for a read-only model (the change log, webhook deliveries), which the API cannot
 * create: built from the schema like inputFor, with relations created through the API.
 */
export async function seedRow(app: TestApp, entry: ModelEntry): Promise<number> {
  const n = next();
  const row: Record<string, unknown> = {};
  for (const f of Object.values(entry.definition.fields)) {
    if (f.type === 'fk') row[f.columns[0]] = f.required ? (await createObject(app, model(f.to!))).id : null;
    else if (f.type === 'generic_fk') {
      const [ct, target] = Object.entries(f.types!).find(([, m]) => m === 'Tenant') ?? Object.entries(f.types!)[0];
      row[f.columns[0]] = ct;
      row[f.columns[1]] = (await createObject(app, model(target))).id;
    } else if (f.type === 'json') row[f.columns[0]] = JSON.stringify(f.example ?? f.default ?? {});
    else if (f.type === 'datetime') row[f.columns[0]] = new Date().toISOString();
    else if (f.columns.length === 1) row[f.columns[0]] = f.default !== undefined ? f.default : scalar(entry, f, n);
  }
  if (entry.definition.timestamps) row.created = row.last_updated = new Date().toISOString();
  const [inserted] = await app.running.db(entry.definition.table).insert(row).returning('id');
  return Number(typeof inserted === 'object' ? inserted.id : inserted);
}
