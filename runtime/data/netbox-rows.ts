/**
 * One NetBox row as the NetLedger row the import (netbox-import.ts) writes: columns taken by name,
 * what a field stores beside its value derived as a write would (network bounds, natural sort keys,
 * token digests), generic relations' content type ids as `app.model`, values in an older unit
 * converted; and the 3.7 columns that a 4.x source keeps beside or as a generic relation.
 */
import { naturalKey } from './natural.js';
import { parseNetwork, networkText } from '../core/ipnet.js';
import { keyDigest } from '../core/secrets.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import type { NetboxSource } from './netbox-source.js';
import { conversions, type Conversion } from '../core/conversions.js';
import type { Src } from './netbox-import-types.js';

/**
 * Values NetBox stored in another unit before one of its migrations, by the conversion of the 3.7
 * API that shows them (schema `convert:`): without that migration applied, the source holds what the
 * conversion writes from (NetBox 4.1 turned disk sizes from GB into MB).
 */
const UNITS_SINCE: Record<string, string> = { mb_to_gb: 'virtualization.0040_convert_disk_size' };

/** Fields of a model whose source values are in the older unit, each with the conversion that stores them. */
export function olderUnits(entry: ModelEntry, source: NetboxSource): [FieldDefinition, Conversion][] {
  return Object.values(entry.definition.fields).flatMap((f) => Object.values(f.convert ?? {})
    .filter((name): name is string => !!name && !!UNITS_SINCE[name] && !source.migrations.has(UNITS_SINCE[name]) && !!conversions[name]?.write)
    .map((name) => [f, conversions[name]] as [FieldDefinition, Conversion]));
}

/** The fields of a model that store a column, once per model rather than per row. */
const storedFields = new WeakMap<ModelEntry, FieldDefinition[]>();
function stored(entry: ModelEntry): FieldDefinition[] {
  let fields = storedFields.get(entry);
  if (!fields) storedFields.set(entry, (fields = Object.values(entry.definition.fields).filter((f) => !['m2m', 'computed', 'alias'].includes(f.type))));
  return fields;
}

/** The NetLedger row of a NetBox row; throws naming the field when a value cannot be taken. */
export function mapRow(entry: ModelEntry, src: Src, source: NetboxSource, lateFields: FieldDefinition[], extra: Src): Src {
  const row: Src = { id: Number(src.id) };
  const has = (c: string) => c in src;
  for (const f of stored(entry)) {
    const column = f.columns[0];
    const value = column in extra ? extra[column] : src[column];
    switch (f.type) {
      case 'fk':
        row[column] = lateFields.length && lateFields.includes(f) ? null : value ?? null;
        break;
      case 'generic_fk': {
        // NetBox 3.7 names some content type columns after the API's key (`content_type_id`)
        const typeId = `${f.name}_type_id` in src || !f.typeKey ? src[`${f.name}_type_id`] : src[`${f.typeKey}_id`];
        row[`${f.name}_type`] = typeId === null || typeId === undefined ? null : source.contentTypes.get(Number(typeId)) ?? null;
        row[`${f.name}_id`] = src[`${f.name}_id`] ?? null;
        break;
      }
      case 'ip_prefix': case 'ip_address': {
        if (value === null || value === undefined) { row[column] = null; break; }
        const n = parseNetwork(String(value));
        if (!n) throw new Error(`${f.name}: '${value}' is not a valid network`);
        if (n.length === 0) throw new Error(`${f.name}: '${value}' has a /0 mask, which NetLedger refuses`);
        if (f.type === 'ip_prefix' && n.hostBitsSet) throw new Error(`${f.name}: '${value}' has host bits set`);
        row[column] = f.type === 'ip_prefix' ? networkText(n) : n.text;
        if (f.type === 'ip_address') row[`${f.name}_host`] = n.host;
        row[`${f.name}_first`] = n.first;
        row[`${f.name}_last`] = n.last;
        row[`${f.name}_length`] = n.length;
        row.family = n.family;
        break;
      }
      case 'token_key': {
        const key = String(src.key ?? '');
        if (!/^[0-9a-fA-F]{40}$/.test(key)) throw new Error(`key: not a 40-character hexadecimal key`);
        row[f.columns[0]] = keyDigest(key.toLowerCase());
        row[f.columns[1]] = '*'.repeat(34) + key.slice(-6);
        break;
      }
      case 'image':
        // the file's name once the file is carried (carryFiles)
        row[column] = '';
        break;
      case 'json':
        row[column] = has(column) || column in extra ? JSON.stringify(value ?? null) : JSON.stringify(f.default ?? null);
        break;
      default:
        // NetBox 4 keeps some blank strings as NULL (interfaces' rf_channel): NetLedger's field is blank then
        if ((has(column) || column in extra) && (value !== null || f.nullable)) row[column] = value instanceof Date ? value.toISOString() : value;
        else if (f.default !== undefined) row[column] = f.default;
        else row[column] = f.nullable ? null : f.type === 'boolean' ? false : ['choice', 'string', 'text', 'slug'].includes(f.type) ? '' : null;
        if (f.natural && f.columns[1]) row[f.columns[1]] = naturalKey(row[column]);
    }
  }
  if (entry.definition.customFields) row.custom_field_data = JSON.stringify(src.custom_field_data ?? {});
  if (entry.definition.timestamps) {
    row.created = src.created instanceof Date ? src.created.toISOString() : src.created ?? null;
    row.last_updated = src.last_updated instanceof Date ? src.last_updated.toISOString() : src.last_updated ?? null;
  }
  return row;
}

/** The content type each 3.7 relation names, where 4.x keeps it as a generic relation. */
const GENERIC_PARTS: Record<string, string> = {
  site_id: 'dcim.site', provider_network_id: 'circuits.providernetwork', device_id: 'dcim.device', virtual_machine_id: 'virtualization.virtualmachine',
};

/**
 * A 3.7 column that a NetBox 4.x schema keeps elsewhere: as a cache beside the generic relation
 * (4.2's `_site_id` beside a prefix's scope, `_provider_network_id` beside a circuit termination's
 * termination), else from the generic relation itself (4.3's service parent).
 */
export function fromScope(src: Src, source: NetboxSource, kind: string, column: string): Src {
  if (column in src) return {};
  if (`_${column}` in src) return { [column]: src[`_${column}`] };
  const type = src[`${kind}_type_id`];
  if (type === null || type === undefined) return {};
  return { [column]: source.contentTypes.get(Number(type)) === GENERIC_PARTS[column] ? src[`${kind}_id`] : null };
}
