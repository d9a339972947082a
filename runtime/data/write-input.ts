/**
 * One element of a write, from what the client sent to the columns it will store: defaults, aliases,
 * scalar checks, network fields, secrets, custom fields and natural sort keys; relations are left as
 * references, resolved for the whole request at once (write-relations.ts).
 */
import { randomBytes } from 'node:crypto';
import { ErrorCollector } from '../core/errors.js';
import { parseNetwork, networkText } from '../core/ipnet.js';
import type { Row, WriteItem } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { hashPassword, keyDigest } from '../core/secrets.js';
import { applyCustomFields, type CustomFieldDef } from './customfields.js';
import { naturalKey } from './natural.js';
import { scalarValue } from './write-values.js';
import { defaultIn, formsOf, inVersion, typeInVersion, typeKeyIn } from '../core/versions.js';
import { conversions } from '../core/conversions.js';

/** A relation named by an element, to resolve with the others of its target model. */
export interface Ref {
  item: number;
  field: string;
  target: string;
  value: unknown;
  /** column to set, or m2m/tags list to fill */
  apply: (id: number) => void;
}

/** Everything one element will write once validation passes. */
export interface Prepared extends WriteItem {
  tags?: number[];
  /** 4.6's `add_tags` and `remove_tags`, resolved (tag-edits.ts turns them into `tags`) */
  tagEdits?: { add: number[]; remove: number[] };
  m2m: Record<string, number[]>;
  customFields?: Record<string, unknown>;
}

interface BodyNames {
  /** the keys of the body that write each stored field, its own name first, then its aliases (device_role for role) */
  keys: Map<string, string[]>;
  /** a stored field the version shows under another name (an alias of it: content_types as 4.6's object_types) */
  shownAs: Map<string, string>;
  /** the writable computed fields of the version (a hook stores them: 4.6's event_types) */
  written: Set<string>;
}

const namesCache = new WeakMap<ModelEntry, Map<string, BodyNames>>();

/** The body keys of a model's fields in `version` (undefined: every version's), worked out once per model and version. */
function bodyNames(entry: ModelEntry, version: string | undefined): BodyNames {
  let byVersion = namesCache.get(entry);
  if (!byVersion) namesCache.set(entry, (byVersion = new Map()));
  let names = byVersion.get(version ?? '');
  if (!names) {
    const has = (f: FieldDefinition) => version === undefined || inVersion(version, f);
    // a field read-only from this version on is not read from its bodies (4.6's interface mac_address)
    const written = (f: FieldDefinition) => !(version !== undefined && f.readOnlySince && inVersion(version, { since: f.readOnlySince }));
    names = { keys: new Map(), shownAs: new Map(), written: new Set() };
    const fields = Object.values(entry.definition.fields);
    for (const f of fields) {
      if (f.type === 'computed' && !f.readOnly && has(f)) names.written.add(f.name);
      if (f.type === 'alias' || f.type === 'computed') continue;
      const aliases = fields.filter((a) => a.type === 'alias' && a.of === f.name && has(a));
      names.keys.set(f.name, written(f) ? [...(has(f) ? [f.name] : []), ...aliases.map((a) => a.name)] : []);
      if (!has(f) && aliases.length) names.shownAs.set(f.name, aliases[0].name);
    }
    byVersion.set(version ?? '', names);
  }
  return names;
}

/** `version`: the API version the write came through (its fields are read from the body; a field's `default_since` may depend on it). */
export function prepareItem(entry: ModelEntry, input: Record<string, unknown>, existing: Row | null, mode: 'create' | 'put' | 'patch', refs: Ref[], index: number, now: string, customFields: CustomFieldDef[], version?: string): Prepared {
  const d = entry.definition;
  // A field is written under the names its version has: its own, or an alias (device_role → role,
  // 4.6's object_types → content_types), the first given winning; errors name it as the version does.
  const names = bodyNames(entry, version);
  const item: Prepared = { input, values: {}, existing, errors: new ErrorCollector(names.shownAs.size ? names.shownAs : undefined), reveal: {}, id: existing ? Number(existing.id) : null, m2m: {} };
  const { values, errors: errs } = item;
  const given = (f: FieldDefinition): [boolean, unknown] => {
    const key = names.keys.get(f.name)?.find((k) => k in input);
    return key === undefined ? [false, undefined] : [true, input[key]];
  };
  for (const f of Object.values(d.fields)) {
    if (f.type === 'computed' && !f.readOnly && names.written.has(f.name) && f.name in input) (item.given ??= new Set()).add(f.name);
    if (f.type === 'alias' || f.type === 'computed') continue;
    if (f.readOnly) {
      if (mode === 'create' && f.type === 'datetime') values[f.columns[0]] = now;
      continue;
    }
    // a field the write's version does not have, under any name, is not read from its body (NetBox ignores unknown keys)
    const [has, value] = given(f);
    if (has) (item.given ??= new Set()).add(f.name);
    if (!has) {
      if (f.type === 'generic_fk' && names.keys.get(f.name)?.length && (typeKeyIn(f, version) in input || `${f.name}_id` in input)) {
        // handled below
      } else if (mode === 'patch' || (mode === 'put' && !f.required)) continue;
      else if (mode === 'put' || f.required) {
        // required where the version has it (4.x's service parent); another version's write leaves it to the model's hooks
        if (!names.keys.get(f.name)?.length) continue;
        if (f.type === 'generic_fk') { errs.add(typeKeyIn(f, version), 'This field is required.'); errs.add(`${f.name}_id`, 'This field is required.'); continue; }
        if (f.type !== 'token_key') { errs.add(f.name, 'This field is required.'); continue; }
      }
    }
    switch (f.type) {
      case 'fk': {
        if (!has) { values[f.columns[0]] = null; break; }
        if (value === null) { if (f.nullable) values[f.columns[0]] = null; else errs.add(f.name, 'This field may not be null.'); break; }
        refs.push({ item: index, field: f.name, target: f.to!, value, apply: (id) => { values[f.columns[0]] = id; } });
        break;
      }
      case 'm2m': {
        if (!has) break;
        if (!Array.isArray(value)) { errs.add(f.name, `Expected a list of items but got type "${typeof value}".`); break; }
        item.m2m[f.name] = [];
        for (const v of value) refs.push({ item: index, field: f.name, target: f.to!, value: v, apply: (id) => { item.m2m[f.name].push(id); } });
        break;
      }
      case 'generic_fk': {
        // the API names the type half typeKey; the column is <name>_type
        const typeKey = typeKeyIn(f, version);
        const idKey = `${f.name}_id`;
        const typeColumn = `${f.name}_type`;
        // a relation of another version (4.x's scope through 3.7) is not read from the body
        if (!names.keys.get(f.name)?.length || (!(typeKey in input) && !(idKey in input))) {
          if (mode === 'create') { values[typeColumn] = null; values[idKey] = null; }
          break;
        }
        // An explicit null clears; a missing half keeps the stored value on PATCH.
        const type = typeKey in input ? input[typeKey] : mode === 'patch' ? existing?.[typeColumn] : null;
        const id = idKey in input ? input[idKey] : mode === 'patch' ? existing?.[idKey] : null;
        if (type === null && id === null) { values[typeColumn] = null; values[idKey] = null; break; }
        if (type === null || type === undefined) { errs.add(typeKey, 'This field cannot be null.'); break; }
        if (id === null || id === undefined) { errs.add(idKey, 'This field cannot be null.'); break; }
        const target = typeInVersion(f, String(type), version) ? f.types![String(type)] : undefined;
        if (!target) { errs.add(typeKey, `"${String(type)}" is not a valid choice.`); break; }
        const numeric = typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : id;
        if (typeof numeric !== 'number' || !Number.isInteger(numeric)) { errs.add(idKey, 'A valid integer is required.'); break; }
        values[typeColumn] = type;
        refs.push({ item: index, field: idKey, target, value: numeric, apply: (rid) => { values[idKey] = rid; } });
        break;
      }
      case 'ip_prefix': case 'ip_address': {
        if (typeof value !== 'string') { errs.add(f.name, 'Enter a valid IPv4 or IPv6 address with optional mask.'); break; }
        const n = parseNetwork(value);
        if (!n) { errs.add(f.name, `'${value}' is not a valid ${f.type === 'ip_prefix' ? 'prefix' : 'IP address'}.`); break; }
        if (n.length === 0) { errs.add(f.name, `Cannot create ${f.type === 'ip_prefix' ? 'prefix' : 'IP address'} with /0 mask.`); break; }
        if (f.type === 'ip_prefix' && n.hostBitsSet) { errs.add(f.name, `${value} is not a valid prefix. Did you mean ${networkText(n)}?`); break; }
        values[f.columns[0]] = f.type === 'ip_prefix' ? networkText(n) : n.text;
        if (f.type === 'ip_address') values[`${f.name}_host`] = n.host;
        values[`${f.name}_first`] = n.first;
        values[`${f.name}_last`] = n.last;
        values[`${f.name}_length`] = n.length;
        values.family = n.family;
        break;
      }
      // the upload is checked and stored by the image_fields hook; a new row has none until one is sent
      case 'image': if (mode === 'create' && !has) values[f.columns[0]] = ''; break;
      case 'password': {
        const v = scalarValue(f, value, errs);
        if (typeof v === 'string') values[f.columns[0]] = hashPassword(v);
        break;
      }
      case 'token_key': {
        let key: string;
        if (has && value !== null && value !== '') {
          if (typeof value !== 'string' || !/^[0-9a-fA-F]{40}$/.test(value)) { errs.add(f.name, 'Ensure this field has exactly 40 hexadecimal characters.'); break; }
          key = value.toLowerCase();
        } else if (mode === 'create') key = randomBytes(20).toString('hex');
        else break;
        values[f.columns[0]] = keyDigest(key);
        values[f.columns[1]] = '*'.repeat(34) + key.slice(-6);
        item.reveal[f.name] = key;
        break;
      }
      default: {
        if (!has) {
          const fallback = defaultIn(f, version);
          if (fallback !== undefined) values[f.columns[0]] = f.type === 'json' ? JSON.stringify(fallback) : fallback;
          else values[f.columns[0]] = f.nullable ? null : f.type === 'boolean' ? false : f.type === 'choice' || f.type === 'string' || f.type === 'text' ? '' : null;
          break;
        }
        // a value the version shows through a conversion is stored through its inverse (3.7's GB as MB)
        // (no version: the default one's, as the default forms read it)
        const conversion = conversions[formsOf(entry, version).convert[f.name] ?? ''];
        const v = scalarValue(f, conversion?.write ? conversion.write(value) : value, errs);
        if (v !== undefined) values[f.columns[0]] = v;
        if (conversion?.write) (item.converted ??= {})[f.name] = formsOf(entry, version).convert[f.name];
      }
    }
  }
  if (d.tags && 'tags' in input) {
    const tags = input.tags;
    if (!Array.isArray(tags)) errs.add('tags', `Expected a list of items but got type "${typeof tags}".`);
    else {
      item.tags = [];
      for (const t of tags) refs.push({ item: index, field: 'tags', target: 'Tag', value: t, apply: (id) => { if (!item.tags!.includes(id)) item.tags!.push(id); } });
    }
  }
  if (d.customFields) {
    const stored = existing?.custom_field_data ? JSON.parse(existing.custom_field_data) : null;
    const ref = (target: string, value: unknown, apply: (id: number) => void) => refs.push({ item: index, field: 'custom_fields', target, value, apply });
    item.customFields = applyCustomFields(customFields, stored, input.custom_fields, mode === 'create', errs, ref) ?? undefined;
  }
  // Naturally ordered names keep their sort key beside them.
  for (const f of Object.values(d.fields)) if (f.natural && f.columns[0] in values) values[f.columns[1]] = naturalKey(values[f.columns[0]] as string | null);
  if (d.timestamps) {
    if (mode === 'create') values.created = now;
    values.last_updated = now;
  }
  return item;
}
