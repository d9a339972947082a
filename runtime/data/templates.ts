/**
 * Component templates become components when an object of their type is created: a device gets the
 * console ports, interfaces, bays … its device type's templates describe, a module those of its
 * module type. Driven by the schema alone: the owner model names the relation to its type
 * (`templates: { from: device_type }`), each template model the component it becomes
 * (`template_for: Interface`). Fields of the same name are copied, relations between templates
 * (a front port's rear port, an interface's bridge, an inventory item's parent or component) become
 * relations between the new components, and placeholders such as `{module}` are filled in.
 *
 * Set-based whatever the number of owners and templates: per template model one query for the
 * templates and one insert per 500 components, plus one update for relations within a table.
 */
import type { Knex } from 'knex';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { errors, type FieldErrors } from '../core/errors.js';
import { model, modelList, type Row, type WriteItem } from './registry.js';
import { naturalKey } from './natural.js';
import { updateEach } from './db.js';
import { treeAfterCreate } from './tree.js';
import { customFieldsFor } from './customfields.js';
import { defer, writeChanges, type ChangeContext } from './changes.js';

const CHUNK = 500;
/** The fields whose placeholders are filled in (NetBox's resolve_name / resolve_label): a description keeps `{module}` as written. */
const FILLED = new Set(['name', 'label']);

/** The template models whose rows belong to objects of `typeModel`, relations' targets first. */
function templateModels(typeModel: string): ModelEntry[] {
  const found = modelList.filter((m) => m.definition.templateFor && Object.values(m.definition.fields).some((f) => f.type === 'fk' && f.to === typeModel));
  const names = new Set(found.map((m) => m.definition.name));
  const dependsOn = (m: ModelEntry) => Object.values(m.definition.fields).flatMap((f) => (f.type === 'fk' ? [f.to!] : f.type === 'generic_fk' ? Object.values(f.types!) : []))
    .filter((t) => t !== m.definition.name && names.has(t));
  const ordered: ModelEntry[] = [];
  const visit = (m: ModelEntry) => {
    if (ordered.includes(m)) return;
    for (const t of dependsOn(m)) visit(model(t));
    ordered.push(m);
  };
  found.forEach(visit);
  return ordered;
}

/** Column values of a new object for the fields a template does not give (the schema's defaults). */
function defaults(entry: ModelEntry): Row {
  const values: Row = {};
  for (const f of Object.values(entry.definition.fields)) {
    if (f.type === 'alias' || f.type === 'computed' || f.type === 'm2m' || !f.columns.length) continue;
    if (f.type === 'fk' || f.type === 'generic_fk' || f.type === 'ip_prefix' || f.type === 'ip_address') { for (const c of f.columns) values[c] = null; continue; }
    const fallback = f.nullable ? null : f.type === 'boolean' ? false : ['choice', 'string', 'text', 'color'].includes(f.type) ? '' : null;
    values[f.columns[0]] = f.default !== undefined ? (f.type === 'json' ? JSON.stringify(f.default) : f.default) : fallback;
  }
  return values;
}

function flag(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  return value === true || value === 1 || (typeof value === 'string' && /^(true|1|yes|on)$/i.test(value));
}

/** The values of the owner's name placeholders ({module} → module_bay.position), one query per path step. */
async function placeholderValues(db: Knex, entry: ModelEntry, owners: WriteItem[], names: Record<string, string>): Promise<Map<number, Record<string, string>>> {
  const out = new Map<number, Record<string, string>>(owners.map((o) => [o.id!, {}]));
  for (const [placeholder, path] of Object.entries(names)) {
    let current = entry;
    let values = new Map<number, unknown>(owners.map((o) => [o.id!, o.id!]));
    let rows = new Map<number, Row>(owners.map((o) => [o.id!, { id: o.id!, ...o.values }]));
    for (const part of path.split('.')) {
      const f = current.definition.fields[part];
      values = new Map([...values.keys()].map((id) => [id, rows.get(Number(values.get(id)))?.[f.columns[0]] ?? null]));
      if (f.type !== 'fk') break;
      current = model(f.to!);
      const ids = [...new Set([...values.values()].filter((v) => v != null).map(Number))];
      rows = new Map(ids.length ? (await db(current.definition.table).whereIn('id', ids)).map((r: Row) => [Number(r.id), r]) : []);
    }
    for (const [id, value] of values) out.get(id)![placeholder] = value == null ? '' : String(value);
  }
  return out;
}

/** Instantiates the templates of the created owners' types; `items` are the created elements. */
export async function instantiateTemplates(ctx: ChangeContext, entry: ModelEntry, items: WriteItem[], bulk: boolean): Promise<void> {
  const spec = entry.definition.templates;
  if (!spec) return;
  const { db } = ctx;
  const owners = items.filter((i) => !spec.skipUnless || flag(i.input[spec.skipUnless], true));
  const adopting = new Set(items.filter((i) => spec.adoptIf && flag(i.input[spec.adoptIf], false)).map((i) => i.id!));
  if (!owners.length && !adopting.size) return;
  const typeField = entry.definition.fields[spec.from];
  const placeholders = await placeholderValues(db, entry, items, spec.names);
  const problems = new Map<number, FieldErrors>();
  const ownerOf = new Map(items.map((i) => [i.id!, i]));
  /** template model → `owner:template` → new component id */
  const made = new Map<string, Map<string, number>>();

  for (const template of templateModels(typeField.to!)) {
    const t = template.definition;
    const component = model(t.templateFor!);
    const c = component.definition;
    const typeColumn = Object.values(t.fields).find((f) => f.type === 'fk' && f.to === typeField.to)!.columns[0];
    const link = Object.values(c.fields).find((f) => f.type === 'fk' && f.to === entry.definition.name)!;
    // The component's other relations the owner has too (a module's device) come from the owner.
    const inherited = Object.values(c.fields).filter((f) => f.type === 'fk' && f !== link && entry.definition.fields[f.name]?.to === f.to);
    const typeIds = [...new Set(items.map((i) => i.values[typeField.columns[0]]).filter((v) => v != null))];
    const templates: Row[] = typeIds.length ? await db(t.table).whereIn(typeColumn, typeIds).orderBy('id') : [];
    if (!templates.length) continue;
    const ownerLookup = new Map<number, Row[]>();
    for (const row of templates) ownerLookup.set(Number(row[typeColumn]), [...(ownerLookup.get(Number(row[typeColumn])) ?? []), row]);
    const base = defaults(component);
    const customDefaults = JSON.stringify(Object.fromEntries((await customFieldsFor(db, component)).filter((d) => d.default !== null).map((d) => [d.name, d.default])));
    const selfLinks: { key: string; field: FieldDefinition; target: string }[] = [];
    const pending: { key: string; values: Row; links: { field: FieldDefinition; target: string }[] }[] = [];

    for (const owner of items) {
      const wanted = owners.includes(owner);
      if (!wanted && !adopting.has(owner.id!)) continue;
      for (const row of ownerLookup.get(Number(owner.values[typeField.columns[0]])) ?? []) {
        const values: Row = { ...base, [link.columns[0]]: owner.id };
        for (const f of inherited) values[f.columns[0]] = owner.values[f.columns[0]] ?? null;
        const links: { field: FieldDefinition; target: string }[] = [];
        for (const f of Object.values(t.fields)) {
          const target = c.fields[f.name];
          if (!target || target === link || f.columns[0] === typeColumn || f.type === 'computed' || f.type === 'alias') continue;
          if (f.type === 'fk' && model(f.to!).definition.templateFor) {
            if (row[f.columns[0]] == null) continue;
            if (f.to === t.name) links.push({ field: target, target: `${owner.id}:${row[f.columns[0]]}` });
            else values[target.columns[0]] = made.get(f.to!)?.get(`${owner.id}:${row[f.columns[0]]}`) ?? null;
          } else if (f.type === 'generic_fk') {
            const sourceModel = f.types![row[f.columns[0]]];
            const newId = sourceModel ? made.get(sourceModel)?.get(`${owner.id}:${row[f.columns[1]]}`) : undefined;
            const contentType = sourceModel ? Object.entries(target.types ?? {}).find(([, m]) => m === model(sourceModel).definition.templateFor)?.[0] : undefined;
            values[target.columns[0]] = newId !== undefined && contentType ? contentType : null;
            values[target.columns[1]] = newId !== undefined && contentType ? newId : null;
          } else {
            f.columns.forEach((col, k) => { if (target.columns[k] !== undefined) values[target.columns[k]] = row[col]; });
            if (FILLED.has(f.name) && typeof values[target.columns[0]] === 'string') {
              values[target.columns[0]] = fill(values[target.columns[0]] as string, placeholders.get(owner.id!)!, (name) => {
                problems.set(owner.id!, { [spec.names[name].split('.')[0]]: [`Cannot install ${entry.definition.verboseName} with placeholder values ({${name}}) where ${spec.names[name]} is not defined.`] });
              });
            }
          }
        }
        for (const f of Object.values(c.fields)) if (f.natural && f.columns[0] in values) values[f.columns[1]] = naturalKey(values[f.columns[0]] as string | null);
        if (c.customFields) values.custom_field_data = customDefaults;
        if (c.timestamps) { values.created = ctx.now; values.last_updated = ctx.now; }
        pending.push({ key: `${owner.id}:${row.id}`, values, links });
      }
    }
    if (problems.size) break;

    // Adopting owners take over existing components of the same name instead of creating them.
    const adopted = new Map<string, number>();
    const nameColumn = c.fields.name?.columns[0];
    const deviceField = inherited.find((f) => f.name === 'device');
    if (nameColumn && deviceField) {
      const keyOf = (v: Row) => `${v[deviceField.columns[0]]}:${v[nameColumn]}`;
      const devices = [...new Set(pending.map((p) => p.values[deviceField.columns[0]]).filter((v) => v != null))];
      const existing = new Map<string, Row>();
      for (let i = 0; i < devices.length; i += CHUNK) {
        for (const r of await db(c.table).select('id', deviceField.columns[0], nameColumn, link.columns[0]).whereIn(deviceField.columns[0], devices.slice(i, i + CHUNK))) existing.set(keyOf(r), r);
      }
      for (const p of pending) {
        const clash = existing.get(keyOf(p.values));
        if (!clash) continue;
        const ownerId = Number(p.values[link.columns[0]]);
        if (adopting.has(ownerId) && clash[link.columns[0]] == null) adopted.set(p.key, Number(clash.id));
        else problems.set(ownerId, { [spec.from]: [`Cannot install ${entry.definition.verboseName}: a ${c.verboseName} named ${p.values[nameColumn]} already exists on this device.`] });
      }
    }
    if (problems.size) break;
    const creating = pending.filter((p) => !adopted.has(p.key) && owners.includes(ownerOf.get(Number(p.values[link.columns[0]]))!));
    const ids = new Map<string, number>(adopted);
    for (let i = 0; i < creating.length; i += CHUNK) {
      const chunk = creating.slice(i, i + CHUNK);
      const returned = await db(c.table).insert(chunk.map((p) => p.values)).returning('id');
      returned.forEach((r: { id: number } | number, j: number) => ids.set(chunk[j].key, Number(typeof r === 'object' ? r.id : r)));
    }
    if (adopted.size) await updateEach(db, c.table, [...adopted.entries()].map(([key, id]) => ({ id, values: { [link.columns[0]]: Number(key.split(':')[0]) } })));
    made.set(t.name, ids);
    // Relations within the table (an interface's bridge, an inventory item's parent) once every row exists.
    for (const p of creating) for (const l of p.links) selfLinks.push({ key: p.key, field: l.field, target: l.target });
    for (const field of new Set(selfLinks.map((l) => l.field))) {
      await updateEach(db, c.table, selfLinks.filter((l) => l.field === field && ids.has(l.target)).map((l) => ({ id: ids.get(l.key)!, values: { [field.columns[0]]: ids.get(l.target)! } })));
    }
    const createdIds = creating.map((p) => ids.get(p.key)!);
    if (c.tree) await placeTree(db, component, createdIds);
    // logged with the device's own record: one change-row INSERT for the request
    if (createdIds.length) await defer(ctx, await writeChanges(ctx, component, 'create', createdIds, null));
  }
  if (problems.size) {
    const keyed = items.map((i) => problems.get(i.id!) ?? {});
    throw errors.validation(bulk ? keyed : keyed[0]);
  }
}

/** Replaces `{name}` placeholders; reports a placeholder whose value is empty. */
function fill(text: string, values: Record<string, string>, missing: (name: string) => void): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (!(name in values)) return whole;
    if (values[name] === '') missing(name);
    return values[name];
  });
}

/** Places new tree rows level by level, so every parent has its path before its children. */
async function placeTree(db: Knex, entry: ModelEntry, ids: number[]): Promise<void> {
  let remaining = new Set(ids);
  while (remaining.size) {
    const rows: Row[] = [];
    const list = [...remaining];
    for (let i = 0; i < list.length; i += CHUNK) rows.push(...(await db(entry.definition.table).select('id', 'parent_id').whereIn('id', list.slice(i, i + CHUNK))));
    const level = rows.filter((r) => r.parent_id == null || !remaining.has(Number(r.parent_id))).map((r) => Number(r.id));
    await treeAfterCreate(db, entry, level);
    remaining = new Set(list.filter((id) => !level.includes(id)));
  }
}
