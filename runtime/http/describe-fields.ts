/**
 * The field metadata an OPTIONS request answers with (DRF's `actions`), from the registry: type,
 * label, limits, help text and choices of every field the request's API version has, under that
 * version's names (4.6's `object_types`, `scope_type`; 3.7's `content_types`, `site`).
 */
import { choiceSet, modelList, storedField } from '../data/registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { fieldsInVersion, typeInVersion } from '../core/versions.js';

/** A generic relation points at the models the version serves. */
function servedTypes(version: string): (f: FieldDefinition) => FieldDefinition {
  const served = new Set(modelList.filter((e) => e.routes.versions.includes(version)).map((e) => e.definition.name));
  return (f) => (f.types ? { ...f, types: Object.fromEntries(Object.entries(f.types).filter(([ct, m]) => served.has(m) && typeInVersion(f, ct, version))) } : f);
}

const described = new Map<string, Record<string, unknown>>();

/** The OPTIONS `actions` field metadata of a model in an API version, worked out once per model and version. */
export function describeFields(entry: ModelEntry, version: string): Record<string, unknown> {
  const key = `${entry.definition.name}@${version}`;
  let out = described.get(key);
  if (!out) described.set(key, (out = describe(entry, fieldsInVersion(entry.definition.fields, version, servedTypes(version)))));
  return out;
}

function describe(entry: ModelEntry, fields: Record<string, FieldDefinition>): Record<string, unknown> {
  const d = entry.definition;
  const out: Record<string, unknown> = {
    id: { type: 'integer', required: false, read_only: true, label: 'ID' },
    url: { type: 'field', required: false, read_only: true, label: 'Url' },
    display: { type: 'field', required: false, read_only: true, label: 'Display' },
  };
  const types: Record<string, string> = { integer: 'integer', decimal: 'decimal', boolean: 'boolean', date: 'date', datetime: 'datetime', json: 'json', choice: 'choice', fk: 'nested object', m2m: 'list', computed: 'field' };
  for (const raw of Object.values(fields)) {
    const f = raw.type === 'alias' ? storedField(entry, raw) : raw;
    if (raw.type === 'generic_fk') {
      out[raw.typeKey!] = { type: 'choice', required: false, read_only: false, label: `${raw.label} type`, choices: Object.keys(raw.types!).map((v) => ({ value: v, display_name: v })) };
      out[`${raw.name}_id`] = { type: 'integer', required: false, read_only: false, label: `${raw.label} ID` };
      out[raw.name] = { type: 'field', required: false, read_only: true, label: raw.label };
      continue;
    }
    const meta: Record<string, unknown> = { type: types[f.type] ?? 'string', required: raw.required, read_only: raw.readOnly || raw.type === 'computed', label: raw.label };
    if (f.maxLength) meta.max_length = f.maxLength;
    if (f.minValue !== undefined) meta.min_value = f.minValue;
    if (f.maxValue !== undefined) meta.max_value = f.maxValue;
    if (raw.helpText) meta.help_text = raw.helpText;
    if (f.type === 'choice') meta.choices = choiceSet(f.choices!).choices.map((c) => ({ value: c.value, display_name: c.label }));
    if (raw.writeOnly) meta.write_only = true;
    out[raw.name] = meta;
  }
  if (d.tags) out.tags = { type: 'list', required: false, read_only: false, label: 'Tags' };
  if (d.customFields) out.custom_fields = { type: 'field', required: false, read_only: false, label: 'Custom fields' };
  if (d.timestamps) {
    out.created = { type: 'date', required: false, read_only: true, label: 'Created' };
    out.last_updated = { type: 'datetime', required: false, read_only: true, label: 'Last updated' };
  }
  for (const name of Object.keys(d.counts)) out[name] = { type: 'integer', required: false, read_only: true, label: name.replace(/_/g, ' ') };
  return out;
}
