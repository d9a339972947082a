/**
 * Builds valid create data for any model from its schema alone: required scalars get unique values,
 * required relations get a freshly created target. The conformance suite uses it for every model.
 */
import { choiceSet, model } from '../runtime/registry.js';
import type { FieldDefinition, ModelEntry } from '../runtime/types.js';
import { expectStatus, type TestApp } from './helpers.js';

let seq = 0;

export function next(): number {
  return ++seq;
}

function scalar(entry: ModelEntry, f: FieldDefinition, n: number): unknown {
  const base = entry.definition.name.toLowerCase();
  switch (f.type) {
    case 'string': case 'text': return `${base}-${f.name}-${n}`.slice(0, f.maxLength ?? 200);
    case 'slug': return `${base}-${n}`.slice(0, f.maxLength ?? 100);
    case 'integer': return Math.min(f.maxValue ?? 1_000_000, (f.minValue ?? 0) + (n % 1000) + 1);
    case 'decimal': return f.minValue ?? 1;
    case 'boolean': return true;
    case 'choice': return choiceSet(f.choices!).choices[0].value;
    case 'color': return 'aa00ff';
    case 'password': return 'correct-horse-battery';
    case 'ip_prefix': return `10.${Math.floor(n / 250) % 250}.${n % 250}.0/24`;
    case 'ip_address': return `172.16.${Math.floor(n / 250) % 250}.${(n % 250) + 1}/24`;
    case 'date': return '2024-05-01';
    case 'datetime': return '2030-01-01T00:00:00.000Z';
    case 'json': return {};
    default: return null;
  }
}

/** Create data with every required field filled (relations created on the way). */
export async function inputFor(app: TestApp, entry: ModelEntry): Promise<Record<string, unknown>> {
  const n = next();
  const input: Record<string, unknown> = {};
  for (const f of Object.values(entry.definition.fields)) {
    // The lookup field (a device's name, say) is filled too, so filters by it have something to find.
    if ((!f.required && f.name !== entry.definition.lookup) || f.readOnly) continue;
    if (f.type === 'fk') input[f.name] = (await createObject(app, model(f.to!))).id;
    else if (f.type === 'token_key') continue;
    else input[f.name] = scalar(entry, f, n);
  }
  // A user name must follow Django's username rules.
  if (entry.definition.fields.username) input.username = `user${n}`;
  return input;
}

export async function createObject(app: TestApp, entry: ModelEntry, extra: Record<string, unknown> = {}): Promise<any> {
  const input = { ...(await inputFor(app, entry)), ...extra };
  const reply = await app.api('POST', entry.routes.list, input);
  expectStatus(reply, 201, `create ${entry.definition.name} with ${JSON.stringify(input)}:`);
  return reply.body;
}

/** A writable, optional text field whose change a test can observe. */
export function editableText(entry: ModelEntry): FieldDefinition | undefined {
  const fields = Object.values(entry.definition.fields);
  return fields.find((f) => (f.type === 'string' || f.type === 'text') && !f.required && !f.unique && !f.readOnly && !f.pattern && !f.nullable)
    ?? fields.find((f) => f.type === 'string' && !f.required && !f.unique && !f.readOnly && !f.pattern);
}

/** A string field set on every created object (used to exercise the string lookups). */
export function requiredText(entry: ModelEntry): FieldDefinition | undefined {
  return Object.values(entry.definition.fields).find((f) => (f.type === 'string' || f.type === 'slug') && f.required && entry.filters[f.name]);
}
