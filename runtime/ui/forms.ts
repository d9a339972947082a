/**
 * Forms generated from a model's fields: which fields a form has, the input each one gets (choices
 * as selects, relations as selects the page's script turns into comboboxes searching the API's `brief=1&q=`, JSON as a textarea, images as file inputs,
 * tags, custom fields), and the conversion of a posted form into the body the API's write path
 * validates. Errors come back keyed by field and are shown next to it.
 */
import { byContentType, choiceSet, storedField } from '../data/registry.js';
import type { CustomFieldDef } from '../data/customfields.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { IMAGE_TYPES } from '../core/image-upload.js';
import { typeKeyIn } from '../core/versions.js';
import { apiVersions } from '../../generated/versions.js';

export interface Option { value: string; label: string; selected: boolean }

export interface Input {
  name: string;
  id: string;
  label: string;
  help?: string;
  required: boolean;
  /** exactly one of these is true: it picks the template's widget */
  text?: boolean;
  textarea?: boolean;
  select?: boolean;
  checkbox?: boolean;
  /** an image field: a file input (the form is then multipart), with the current image and a "remove" box */
  file?: { accept: string; current: string | null; clear: string };
  inputType?: string;
  multiple?: boolean;
  value: string;
  checked?: boolean;
  options?: Option[];
  /** relations: the API list the combobox queries as the user types */
  searchUrl?: string;
  errors: string[];
  invalid: boolean;
}

const SKIPPED = new Set(['computed', 'alias']);

/** The checkbox that removes an image field's file. */
const clearName = (name: string) => `${name}-clear`;

/** A file input that sent no file: its part is an empty data URL (runtime/http/form-body.ts). */
const noFile = (text: string) => text === '' || /^data:[^,]*;base64,$/.test(text);

/** The fields a person fills in: writable, stored and not generated, and computed ones with a form input (an image attachment's image). */
export function formFields(entry: ModelEntry, creating: boolean): FieldDefinition[] {
  return Object.values(entry.definition.fields).filter((f) => (f.formInput || (!f.readOnly && !SKIPPED.has(f.type))) && !(f.type === 'token_key' && !creating));
}

/** The API list a relation's combobox searches: only a model whose list has the `q` filter. */
export function searchUrlOf(model: string): string | undefined {
  for (const entry of byContentType.values()) if (entry.definition.name === model && entry.filters.q) return apiListOf(model);
  return undefined;
}

export function apiListOf(model: string): string | undefined {
  for (const entry of byContentType.values()) if (entry.definition.name === model) return `/api/${entry.definition.app}/${entry.definition.endpoint}/`;
  return undefined;
}

function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value, null, 2);
  return String(value);
}

/** The form value of a field from the API representation of the object (or the schema default). */
function current(field: FieldDefinition, object: Record<string, any> | null, initial: URLSearchParams | undefined): unknown {
  if (!object) {
    if (initial?.has(field.name)) return field.type === 'm2m' ? initial.getAll(field.name) : field.type === 'boolean' ? initial.get(field.name) === 'true' : initial.get(field.name);
    return field.default ?? null;
  }
  const v = object[field.name];
  if (v && typeof v === 'object' && !Array.isArray(v) && 'value' in v && 'label' in v) return v.value;
  return v;
}

/** Options for a relation: the current objects first, then those the API listed. */
function relationOptions(selected: { id: unknown; display?: unknown }[], listed: { id: unknown; display?: unknown }[], nullable: boolean): Option[] {
  const ids = new Set(selected.map((s) => String(s.id)));
  const options = selected.map((s) => ({ value: String(s.id), label: String(s.display ?? s.id), selected: true }));
  for (const o of listed) if (!ids.has(String(o.id))) options.push({ value: String(o.id), label: String(o.display ?? o.id), selected: false });
  return nullable ? [{ value: '', label: '---------', selected: !selected.length }, ...options] : options;
}

export interface FormSource {
  object: Record<string, any> | null;
  /** posted values to show again after an error */
  posted: URLSearchParams | null;
  errors: Record<string, string[]>;
  /** values a new object's form starts with (the add page's query: ?device=3) */
  initial?: URLSearchParams;
  /** brief objects of related models, by model name */
  choicesOf: (model: string) => { id: unknown; display?: unknown }[];
  customFields: CustomFieldDef[];
}

function base(name: string, label: string, required: boolean, errors: string[], help?: string): Input {
  return { name, id: `field-${name}`, label, required, value: '', errors, invalid: errors.length > 0, ...(help ? { help } : {}) };
}

function errorsOf(errs: Record<string, string[]> | undefined, name: string): string[] {
  const e = errs?.[name];
  return Array.isArray(e) ? e.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : e ? [String(e)] : [];
}

export function buildInputs(entry: ModelEntry, creating: boolean, src: FormSource): Input[] {
  const d = entry.definition;
  const inputs: Input[] = [];
  const postedOr = (name: string, fallback: string) => (src.posted ? src.posted.get(name) ?? '' : fallback);
  for (const raw of formFields(entry, creating)) {
    const stored = storedField(entry, raw);
    const f = raw.formInput ? { ...stored, type: raw.formInput } : stored;
    const input = base(raw.name, raw.label, raw.required && creating, errorsOf(src.errors, raw.name), raw.helpText);
    const value = current(raw, src.object, src.initial);
    if (f.type === 'choice') {
      const chosen = postedOr(raw.name, toText(value));
      const set = choiceSet(f.choices!);
      input.select = true;
      // A required choice without a default starts empty: a careless save is refused, not wrong.
      input.options = [...(raw.nullable || raw.blank || !raw.required || chosen === '' ? [{ value: '', label: '---------', selected: chosen === '' }] : []),
        ...set.choices.map((c) => ({ value: String(c.value), label: c.label, selected: String(c.value) === chosen }))];
    } else if (f.type === 'fk' || f.type === 'm2m') {
      const listed = src.choicesOf(f.to!);
      const asObjects = (v: unknown[]) => v.map((x) => (x && typeof x === 'object' ? x as { id: unknown } : listed.find((o) => String(o.id) === String(x)))).filter((x): x is { id: unknown } => !!x);
      const list = asObjects(f.type === 'm2m' ? ((value as unknown[]) ?? []) : value ? [value] : []);
      const postedIds = src.posted?.getAll(raw.name).filter(Boolean);
      const selected = postedIds ? listed.filter((o) => postedIds.includes(String(o.id))) : list;
      input.select = true;
      input.multiple = f.type === 'm2m';
      // A required relation starts empty too (no first object chosen for the user).
      input.options = relationOptions(selected, listed, f.type === 'fk' && (raw.nullable || !raw.required || !selected.length));
      input.searchUrl = searchUrlOf(f.to!);
    } else if (f.type === 'boolean') {
      input.checkbox = true;
      input.checked = src.posted ? src.posted.getAll(raw.name).includes('true') : value === true;
    } else if (f.type === 'json' || f.type === 'text') {
      input.textarea = true;
      input.value = postedOr(raw.name, f.type === 'json' ? (value === null || value === undefined ? '' : JSON.stringify(value, null, 2)) : toText(value));
    } else if (f.type === 'image') {
      input.required = false;
      input.file = { accept: IMAGE_TYPES.join(','), current: typeof value === 'string' && value ? value : null, clear: clearName(raw.name) };
    } else if (f.type === 'generic_fk') {
      const typeKey = typeKeyIn(raw, apiVersions.default);
      const type = base(`${raw.name}_type`, `${raw.label} type`, raw.required && creating, [...errorsOf(src.errors, `${raw.name}_type`), ...(typeKey === `${raw.name}_type` ? [] : errorsOf(src.errors, typeKey))]);
      // the kinds of object it may name, as a select (a prefix's scope: region, site group, site, location)
      const chosenType = postedOr(`${raw.name}_type`, toText(src.object ? src.object[`${raw.name}_type`] : src.initial?.get(`${raw.name}_type`)));
      type.select = true;
      type.options = [{ value: '', label: '---------', selected: chosenType === '' }, ...Object.entries(raw.types ?? {})
        .map(([ct, name]) => ({ value: ct, label: `${byContentType.get(ct)?.definition.verboseName ?? name} (${ct})`, selected: ct === chosenType }))];
      if (chosenType && !type.options.some((o) => o.selected)) type.options.push({ value: chosenType, label: chosenType, selected: true });
      const id = base(`${raw.name}_id`, `${raw.label} ID`, raw.required && creating, [...errorsOf(src.errors, `${raw.name}_id`), ...input.errors]);
      id.text = true;
      id.inputType = 'number';
      id.value = postedOr(`${raw.name}_id`, toText(src.object ? src.object[`${raw.name}_id`] : src.initial?.get(`${raw.name}_id`)));
      inputs.push(type, id);
      continue;
    } else {
      input.text = true;
      input.inputType = f.type === 'password' ? 'password' : f.type === 'integer' || f.type === 'decimal' ? 'number' : f.type === 'date' ? 'date' : 'text';
      if (f.type === 'decimal') input.inputType = 'text';
      input.value = f.type === 'password' || f.type === 'token_key' ? '' : postedOr(raw.name, toText(value));
    }
    inputs.push(input);
  }
  if (d.tags) {
    const tagEntry = byContentType.get('extras.tag');
    const tags = (src.object?.tags ?? []) as { id: unknown; display?: unknown }[];
    const postedIds = src.posted?.getAll('tags').filter(Boolean);
    const listed = tagEntry ? src.choicesOf(tagEntry.definition.name) : [];
    const input = base('tags', 'Tags', false, errorsOf(src.errors, 'tags'));
    input.select = true;
    input.multiple = true;
    input.options = relationOptions(postedIds ? listed.filter((o) => postedIds.includes(String(o.id))) : tags, listed, false);
    input.searchUrl = tagEntry ? searchUrlOf(tagEntry.definition.name) : undefined;
    inputs.push(input);
  }
  // The API reports custom fields as one list of messages, each naming its field ('name').
  const cfErrors = src.errors?.custom_fields as unknown;
  const cfErrorsOf = (name: string) => Array.isArray(cfErrors)
    ? cfErrors.filter((m): m is string => typeof m === 'string' && m.includes(`'${name}'`))
    : errorsOf(cfErrors && typeof cfErrors === 'object' ? (cfErrors as Record<string, string[]>) : undefined, name);
  for (const cf of d.customFields ? src.customFields : []) {
    const name = `cf_${cf.name}`;
    const input = base(name, cf.name.replace(/_/g, ' '), cf.required && creating, cfErrorsOf(cf.name));
    const value = src.object?.custom_fields?.[cf.name] ?? (src.object ? null : cf.default);
    if (cf.type === 'boolean') {
      input.checkbox = true;
      input.checked = src.posted ? src.posted.getAll(name).includes('true') : value === true;
    } else if (cf.type === 'select') {
      input.select = true;
      const chosen = postedOr(name, toText(value));
      input.options = [{ value: '', label: '---------', selected: chosen === '' }, ...cf.choices.map((c) => ({ value: c, label: c, selected: c === chosen }))];
    } else if (cf.type === 'json' || cf.type === 'longtext' || cf.type === 'multiselect' || cf.type.includes('object')) {
      input.textarea = true;
      input.value = postedOr(name, value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));
    } else {
      input.text = true;
      input.inputType = cf.type === 'integer' || cf.type === 'decimal' ? 'number' : cf.type === 'date' ? 'date' : 'text';
      input.value = postedOr(name, toText(value));
    }
    inputs.push(input);
  }
  return inputs;
}

function number(text: string): number | string {
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

/**
 * The API body of a posted form. Values the API would reject stay as given, so its validation
 * (not this function) reports them; only JSON that does not parse is reported here.
 */
export function formBody(entry: ModelEntry, form: URLSearchParams, creating: boolean, customFields: CustomFieldDef[]): { body: Record<string, unknown>; errors: Record<string, string[]> } {
  const body: Record<string, unknown> = {};
  const errors: Record<string, string[]> = {};
  for (const raw of formFields(entry, creating)) {
    const stored = storedField(entry, raw);
    const f = raw.formInput ? { ...stored, type: raw.formInput } : stored;
    const text = form.get(raw.name) ?? '';
    const empty = text.trim() === '';
    switch (f.type) {
      case 'boolean': body[raw.name] = form.getAll(raw.name).includes('true'); break;
      case 'm2m': body[raw.name] = form.getAll(raw.name).filter(Boolean).map(number); break;
      case 'fk': body[raw.name] = empty ? null : number(text); break;
      case 'integer': case 'decimal': body[raw.name] = empty ? null : number(text); break;
      case 'choice': body[raw.name] = empty ? (raw.blank ? '' : null) : choiceSet(f.choices!).integer ? number(text) : text; break;
      case 'json':
        if (empty) body[raw.name] = null;
        else try { body[raw.name] = JSON.parse(text); } catch (e) { errors[raw.name] = [`Enter valid JSON: ${(e as Error).message}`]; }
        break;
      case 'generic_fk': {
        const type = form.get(`${raw.name}_type`) ?? '';
        const id = form.get(`${raw.name}_id`) ?? '';
        // the type goes under the name the default version reads (a contact assignment's content_type under 3.7)
        body[typeKeyIn(raw, apiVersions.default)] = type.trim() === '' ? null : type.trim();
        body[`${raw.name}_id`] = id.trim() === '' ? null : number(id);
        break;
      }
      case 'password': case 'token_key': if (!empty) body[raw.name] = text; break;
      // a chosen file goes to the API as it takes one (a data URL); "remove" clears it; else unchanged
      case 'image':
        if (!noFile(text)) body[raw.name] = text;
        else if (form.get(clearName(raw.name)) === 'true') body[raw.name] = null;
        continue;
      case 'date': case 'datetime': case 'ip_address': case 'ip_prefix': case 'mac':
        body[raw.name] = empty ? null : text.trim(); break;
      default: body[raw.name] = empty && raw.nullable ? null : text;
    }
    if (body[raw.name] === null && !raw.nullable && !['fk', 'choice'].includes(f.type) && raw.default !== undefined) body[raw.name] = raw.default;
    if (body[raw.name] === null && !raw.nullable && !raw.required && raw.default === undefined) delete body[raw.name];
    // A required field left empty is missing, as the API words it ("This field is required.").
    if (creating && raw.required && empty && f.type !== 'boolean' && f.type !== 'm2m' && f.type !== 'generic_fk') delete body[raw.name];
  }
  if (entry.definition.tags) body.tags = form.getAll('tags').filter(Boolean).map(number);
  if (entry.definition.customFields && customFields.length) {
    const cfs: Record<string, unknown> = {};
    for (const cf of customFields) {
      const text = form.get(`cf_${cf.name}`) ?? '';
      if (cf.type === 'boolean') { cfs[cf.name] = form.getAll(`cf_${cf.name}`).includes('true'); continue; }
      if (text.trim() === '') { cfs[cf.name] = null; continue; }
      if (cf.type === 'integer' || cf.type === 'decimal') cfs[cf.name] = number(text);
      else if (cf.type === 'json' || cf.type === 'multiselect' || cf.type === 'multiobject' || cf.type === 'object') {
        try { cfs[cf.name] = JSON.parse(text); } catch { cfs[cf.name] = cf.type === 'multiselect' ? text.split(',').map((s) => s.trim()) : text; }
      } else cfs[cf.name] = text;
    }
    body.custom_fields = cfs;
  }
  return { body, errors };
}
