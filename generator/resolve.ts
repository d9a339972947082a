/**
 * Turns the checked YAML into the resolved tables of runtime/core/types.ts: defaults filled in, columns
 * named, and the complete filter set of each model (automatic filters plus declared ones).
 */
import type { ModelFile } from '../generated/schema-format.js';
import type {
  NavigationMenu,
  CablingDefinition, ChoiceSet, CountDefinition, FieldDefinition, FieldType, FilterDefinition, FilterSet, LookupFamily,
  ModelDefinition, ModelEntry, PathStep, SerializerDefinition, VersionForms,
} from '../runtime/core/types.js';
import { movedPaths, servedVersions } from './versions.js';
import { resolveMenu } from './menu.js';
import { compareVersions, inVersion, typeKeyVersions } from '../runtime/core/versions.js';
import type { LoadedSchema } from './load.js';
import { splitPath } from '../runtime/core/paths.js';
import { IMAGE_FILE, IMAGE_HOOK } from '../runtime/core/image-fields.js';
import { defaultContentType, defaultLabel, defaultTable, detailPath, listPath, m2mTable } from './naming.js';

type SpecField = ModelFile['fields'][string];

export interface ResolvedSchema {
  entries: ModelEntry[];
  choiceSets: ChoiceSet[];
  versions: LoadedSchema['versions'];
  /** the web interface's menu, every model in it */
  menu: NavigationMenu[];
}

/** A model flag is set by `true` or by a block of settings (`cabling:`). */
const isSet = (v: unknown): boolean => v === true || (v !== null && typeof v === 'object');

export function resolveSchema(schema: LoadedSchema): ResolvedSchema {
  const specs = new Map(schema.models.map((m) => [m.spec.model, m]));
  const definitions = new Map<string, ModelDefinition>();
  for (const { spec, file } of schema.models) definitions.set(spec.model, resolveModel(spec, file, specs, schema.choiceSets));
  // A generic relation to '*' may point at any model that keeps a change log; one to a flag
  // (`types: contacts`, `types: cabling`) at every model whose YAML sets that flag.
  const everyModel = Object.fromEntries([...definitions.values()].filter((d) => d.changelog).map((d) => [d.contentType, d.name]).sort());
  const flagged = (flag: string) => Object.fromEntries(schema.models.filter((m) => isSet((m.spec as unknown as Record<string, unknown>)[flag]))
    .map((m) => [definitions.get(m.spec.model)!.contentType, m.spec.model]).sort());
  // a flag set from a version on (`contacts: { since: "4.0" }`): the relation points there from that version on
  const flaggedSince = (flag: string) => Object.fromEntries(schema.models.flatMap((m) => {
    const v = (m.spec as unknown as Record<string, unknown>)[flag] as { since?: string } | undefined;
    return v && typeof v === 'object' && typeof v.since === 'string' ? [[definitions.get(m.spec.model)!.contentType, v.since]] : [];
  }));
  for (const d of definitions.values()) {
    for (const f of Object.values(d.fields)) {
      const types = f.types as unknown;
      if (types === '*') f.types = everyModel;
      else if (typeof types === 'string') {
        f.types = flagged(types);
        const since = flaggedSince(types);
        if (Object.keys(since).length) f.typesSince = since;
      } else if (types && typeof types === 'object') {
        // a type listed by name whose model is served from a version on (a VLAN group's rack group scope)
        // is a choice from that version on
        const since = Object.fromEntries(Object.entries(types as Record<string, string>)
          .flatMap(([ct, model]) => { const s = specs.get(model)?.spec.since; return s ? [[ct, s]] : []; }));
        if (Object.keys(since).length) f.typesSince = since;
      }
    }
  }
  addReverseTabs(schema, definitions);
  const spec = (d: ModelDefinition) => schema.models.find((m) => m.spec.model === d.name)!.spec;
  const entries = [...definitions.values()]
    .sort((a, b) => (a.app + a.endpoint).localeCompare(b.app + b.endpoint))
    .map((definition) => ({
      definition,
      serializer: resolveSerializer(definition, spec(definition), schema.versions),
      filters: resolveFilters(definition, definitions, schema.models.find((m) => m.spec.model === definition.name)!.spec, schema),
      routes: {
        model: definition.name,
        versions: servedVersions(schema.versions, spec(definition)),
        list: listPath(definition.app, definition.endpoint),
        detail: detailPath(definition.app, definition.endpoint),
        ...(spec(definition).moved ? { byVersion: movedPaths(servedVersions(schema.versions, spec(definition)), spec(definition)) } : {}),
        ...(spec(definition).legacy_app ? { legacy: { list: listPath(spec(definition).legacy_app!, definition.endpoint), detail: detailPath(spec(definition).legacy_app!, definition.endpoint) } } : {}),
        // `actions:` in the YAML: extra detail routes served by a function of the model's hooks
        extra: Object.entries(schema.models.find((m) => m.spec.model === definition.name)!.spec.actions ?? {})
          .map(([name, a]) => ({ path: a.app ? `/api/${definition.app}/${name}/` : `${detailPath(definition.app, definition.endpoint)}${name}/`, methods: a.methods, hook: a.hook, ...(a.app ? { app: true } : {}), ...(a.permission ? { permission: a.permission } : {}), ...(a.returns ? { returns: a.returns } : {}) }))
          // an image field's file, served by the generic image_fields hook
          .concat(Object.values(definition.fields).filter((f) => f.type === 'image').map((f) => ({ path: `${detailPath(definition.app, definition.endpoint)}${f.name}/`, methods: ['GET'], hook: IMAGE_FILE, field: f.name, returns: { GET: { schema: { type: 'string', format: 'binary' } } } }))),
      },
    }));
  const choiceSets = [...schema.choiceSets.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((s) => ({ name: s.name, integer: s.integer ?? false, choices: s.choices.map((c) => ({ ...c })) }));
  return { entries, choiceSets, versions: schema.versions, menu: resolveMenu(schema.menu, entries.map((e) => ({ name: e.definition.name, app: e.definition.app }))) };
}

function columnsOf(name: string, f: SpecField): string[] {
  switch (f.type) {
    case 'fk': return [`${name}_id`];
    case 'generic_fk': return [`${name}_type`, `${name}_id`];
    case 'ip_prefix': return [name, `${name}_first`, `${name}_last`, `${name}_length`];
    case 'ip_address': return [name, `${name}_host`, `${name}_first`, `${name}_last`, `${name}_length`];
    case 'token_key': return [`${name}_digest`, `${name}_hint`];
    case 'm2m': case 'alias': case 'computed': return [];
    case 'string': return f.natural ? [name, `_${name}_natural`] : [name];
    default: return [name];
  }
}

function resolveModel(spec: ModelFile, file: string, specs: Map<string, { spec: ModelFile }>, schemaChoices: LoadedSchema['choiceSets']): ModelDefinition {
  const table = spec.table ?? defaultTable(spec.app, spec.model);
  const fields: Record<string, FieldDefinition> = {};
  for (const [name, f] of Object.entries(spec.fields)) {
    const definition: FieldDefinition = {
      name,
      type: f.type as FieldType,
      label: f.label ?? defaultLabel(name),
      required: f.required ?? false,
      nullable: f.nullable ?? false,
      readOnly: f.read_only ?? f.type === 'computed',
      writeOnly: f.write_only ?? false,
      unique: f.unique ?? false,
      uniqueCi: f.unique_ci ?? false,
      columns: columnsOf(name, f),
    };
    const optional: Partial<FieldDefinition> = {
      helpText: f.help_text, default: f.default, maxLength: f.max_length, minValue: f.min_value, maxValue: f.max_value,
      maxDigits: f.max_digits, decimalPlaces: f.decimal_places, pattern: f.pattern, choices: f.choices, blank: f.blank, plain: f.plain,
      to: f.to, types: f.types as Record<string, string> | undefined, filter: f.filter, natural: f.natural, example: f.example, of: f.of, same: typeof f.same === 'string' ? [f.same] : f.same, source: f.value !== undefined ? 'value' : f.source, value: f.value,
      since: f.since, until: f.until, readOnlySince: f.read_only_since, convert: f.convert as Record<string, string | null> | undefined, defaultSince: f.default_since as Record<string, unknown> | undefined,
      snapshotOf: f.snapshot_of, formInput: f.form_input,
    };
    for (const [k, v] of Object.entries(optional)) if (v !== undefined) (definition as unknown as Record<string, unknown>)[k] = v;
    if (f.type === 'fk') definition.onDelete = (f.on_delete ?? (definition.required ? 'protect' : 'set_null')) as FieldDefinition['onDelete'];
    if (f.type === 'generic_fk') {
      definition.onDelete = (f.on_delete ?? 'set_null') as FieldDefinition['onDelete'];
      if (f.on_delete_since) definition.onDeleteSince = { ...f.on_delete_since } as FieldDefinition['onDeleteSince'];
      definition.typeKey = f.type_key ?? `${name}_type`;
      if (f.type_key_since) definition.typeKeySince = { ...f.type_key_since };
      if (f.nested_key) definition.nestedKey = f.nested_key;
    }
    if (f.extra) definition.extra = f.extra;
    if (f.where) definition.where = f.where;
    if (f.form) definition.form = f.form;
    if (f.sum_of) definition.sumOf = { ...f.sum_of };
    if (f.type === 'm2m') definition.through = m2mTable(table, name);
    fields[name] = definition;
  }
  const counts: Record<string, CountDefinition> = {};
  for (const [name, c] of Object.entries(spec.counts ?? {})) {
    const cumulative = !!spec.tree && c.model !== spec.model;
    counts[name] = { name, model: c.model, field: c.field, cumulative, ...(cumulative ? {} : { column: name }), ...(c.since ? { since: c.since } : {}), ...(c.until ? { until: c.until } : {}) };
  }
  const lookup = spec.lookup ?? (fields.slug ? 'slug' : fields.name ? 'name' : 'id');
  return {
    name: spec.model,
    app: spec.app,
    endpoint: spec.endpoint,
    table,
    contentType: spec.content_type ?? defaultContentType(spec.app, spec.model),
    verboseName: spec.verbose_name ?? spec.model.toLowerCase(),
    source: file,
    tree: spec.tree ?? false,
    tags: spec.tags ?? true,
    customFields: spec.custom_fields ?? true,
    timestamps: spec.timestamps ?? true,
    readOnly: spec.read_only ?? false,
    ...(spec.system_table ? { systemTable: true } : {}),
    changelog: spec.changelog ?? (spec.app !== 'users' && !(spec.read_only ?? false)),
    lookup,
    display: spec.display,
    ordering: spec.ordering ?? [lookup],
    brief: spec.brief,
    search: spec.search ?? [],
    ...(spec.search_related ? { searchRelated: Object.entries(spec.search_related).map(([ref, fields]) => ({ model: ref.split('.')[0], field: ref.split('.')[1], fields })) } : {}),
    // image fields are kept and served by one generic hook
    hooks: [...(spec.hooks ?? []), ...(Object.values(fields).some((f) => f.type === 'image') ? [IMAGE_HOOK] : [])],
    uniqueTogether: spec.unique_together ?? [],
    uniqueNullsMatch: spec.unique_nulls_match ?? [],
    ...(spec.clone ? { clone: spec.clone } : {}),
    ...(spec.unique_blank_exempt ? { uniqueBlankExempt: spec.unique_blank_exempt } : {}),
    ...(spec.changelog_related ? { changelogRelated: spec.changelog_related } : {}),
    ...(spec.ui ? { ui: { ...(spec.ui.columns ? { columns: spec.ui.columns } : {}), tabs: Object.entries(spec.ui.tabs ?? {}).map(([path, t]) => ({ path, model: t.model, filter: t.filter, ...(t.label ? { label: t.label } : {}), ...(t.add ? { add: t.add } : {}), ...(t.view ? { view: t.view } : {}) })), patterns: spec.ui.patterns ?? [], panels: spec.ui.panels ?? [], columnViews: spec.ui.column_views ?? [], ...(spec.ui.connections ? { connections: { path: spec.ui.connections.path, label: spec.ui.connections.label, farParent: spec.ui.connections.far_parent, farPort: spec.ui.connections.far_port } } : {}) } } : {}),
    ...(spec.template_for ? { templateFor: spec.template_for } : {}),
    ...(spec.templates ? { templates: { from: spec.templates.from, names: spec.templates.names ?? {}, ...(spec.templates.skip_unless ? { skipUnless: spec.templates.skip_unless } : {}), ...(spec.templates.adopt_if ? { adoptIf: spec.templates.adopt_if } : {}) } } : {}),
    fields,
    counts,
    ...(spec.cabling ? { cabling: resolveCabling(spec, schemaChoices) } : {}),
  };
}

/** `cabling:` as the runtime reads it: choice groups that forbid a cable become their values. */
function resolveCabling(spec: ModelFile, choiceSets: LoadedSchema['choiceSets']): CablingDefinition {
  const c = spec.cabling!;
  const out: CablingDefinition = { role: c.role, peers: [...c.peers].sort() };
  if (c.parent) out.parent = c.parent;
  if (c.not_cabled) {
    const set = choiceSets.get(spec.fields[c.not_cabled.field]?.choices ?? '');
    const groups = c.not_cabled.groups ?? [];
    const values = [...(c.not_cabled.values ?? []), ...(set?.choices ?? []).filter((x) => x.group && groups.includes(x.group)).map((x) => String(x.value))];
    out.notCabled = { field: c.not_cabled.field, values: [...new Set(values)] };
  }
  if (c.through) out.through = { ...c.through };
  if (c.continue_via) out.continueVia = c.continue_via;
  return out;
}

function resolveSerializer(d: ModelDefinition, spec: ModelFile, versions: LoadedSchema['versions']): SerializerDefinition {
  const own = Object.values(d.fields).filter((f) => !f.writeOnly).map((f) => f.name);
  const all = ['id', 'url', 'display', ...own];
  if (d.tags) all.push('tags');
  if (d.customFields) all.push('custom_fields');
  if (d.timestamps) all.push('created', 'last_updated');
  all.push(...Object.keys(d.counts).filter((c) => !all.includes(c)));
  const forms = Object.fromEntries(versions.versions.map((v) => [v.version, versionForms(d, spec, all, v)]));
  return { model: d.name, ...forms[versions.default], versions: forms };
}

/** One version's forms: the fields that exist in it, its additions, and the conversions from it on. */
function versionForms(d: ModelDefinition, spec: ModelFile, all: string[], v: LoadedSchema['versions']['versions'][number]): VersionForms {
  const exists = (name: string) => { const shown = d.fields[name] ?? d.counts[name]; return !shown || inVersion(v.version, shown); };
  const full = all.filter(exists);
  if (v.full_add?.length) full.splice(full.indexOf('display') + 1, 0, ...v.full_add.filter((n) => !full.includes(n)));
  const own = Object.entries(spec.brief_since ?? {}).filter(([since]) => inVersion(v.version, { since })).sort(([a], [b]) => compareVersions(b, a))[0]?.[1];
  const brief = own ? [...own] : [...d.brief.filter(exists), ...(v.brief_add ?? []).filter((n) => d.fields[n] && exists(n) && !d.brief.includes(n))];
  const convert: Record<string, string> = { ...(v.convert ?? {}) };
  for (const f of Object.values(d.fields)) {
    const from = Object.entries(f.convert ?? {}).filter(([since]) => inVersion(v.version, { since })).sort(([a], [b]) => compareVersions(b, a))[0];
    if (from?.[1] && full.includes(f.name)) convert[f.name] = from[1];
  }
  for (const name of Object.keys(convert)) if (!full.includes(name)) delete convert[name];
  const display = Object.entries(spec.display_since ?? {}).filter(([since]) => inVersion(v.version, { since })).sort(([a], [b]) => compareVersions(b, a))[0]?.[1];
  return { full, brief, nested: brief.filter((f) => !d.counts[f]), convert, ...(display ? { display } : {}) };
}

function familyOf(type: FieldType): LookupFamily | null {
  switch (type) {
    case 'string': case 'text': case 'slug': case 'color': case 'mac': return 'string';
    case 'integer': case 'decimal': case 'date': case 'datetime': return 'number';
    case 'boolean': return 'boolean';
    case 'choice': return 'exact';
    default: return null;
  }
}

/** NetBox's filter set for a model: one filter per field, relation filters by id and by lookup field, and extras. */
function resolveFilters(d: ModelDefinition, all: Map<string, ModelDefinition>, spec: ModelFile, schema: LoadedSchema): FilterSet {
  const filters: FilterSet = {};
  filters.id = { kind: 'field', field: 'id', family: 'number' };
  const relation = (name: string, f: FieldDefinition, steps: PathStep[]) => {
    const target = all.get(f.to!)!;
    const tree = target.tree && !(d.tree && f.name === 'parent');
    filters[`${name}_id`] = { kind: 'path', path: steps, by: 'id', family: 'exact', tree };
    if (target.lookup !== 'id') filters[name] = { kind: 'path', path: steps, by: target.lookup, family: 'exact', tree };
  };
  for (const f of Object.values(d.fields)) {
    if (f.filter === false) continue;
    const before = new Set(Object.keys(filters));
    const family = familyOf(f.type);
    if (f.type === 'image') filters[`has_${f.name}`] = { kind: 'field', field: f.name, family: 'boolean', present: true };
    else if (family) filters[f.name] = { kind: 'field', field: f.name, family };
    else if (f.type === 'fk') relation(f.name, f, [{ field: f.name, model: f.to! }]);
    else if (f.type === 'alias') {
      const of = d.fields[f.of!];
      if (of.type === 'fk') relation(f.name, of, [{ field: of.name, model: of.to! }]);
    } else if (f.type === 'generic_fk') {
      // the type half's filter goes by the name each version gives it (contact assignments' content_type, 4.x's object_type)
      for (const [key, keys] of typeKeyVersions(f)) filters[key] = { kind: 'field', field: f.name, family: 'exact', ...keys };
      filters[`${f.name}_id`] = { kind: 'field', field: `${f.name}_id`, family: 'number' };
    } else if (f.type === 'ip_prefix') {
      filters[f.name] = { kind: 'ip', field: f.name, op: 'exact' };
      for (const op of ['within', 'within_include', 'contains', 'mask_length'] as const) filters[op] = { kind: 'ip', field: f.name, op };
    } else if (f.type === 'ip_address') {
      filters[f.name] = { kind: 'ip', field: f.name, op: 'exact' };
      for (const op of ['parent', 'mask_length'] as const) filters[op] = { kind: 'ip', field: f.name, op };
    }
    // a field's filters exist in the versions the field does
    for (const name of Object.keys(filters)) if (!before.has(name)) Object.assign(filters[name], versionKeys(f));
  }
  if (d.tags) {
    filters.tag = { kind: 'tag', by: 'slug' };
    filters.tag_id = { kind: 'tag', by: 'id' };
  }
  if (d.timestamps) {
    filters.created = { kind: 'field', field: 'created', family: 'number' };
    filters.last_updated = { kind: 'field', field: 'last_updated', family: 'number' };
  }
  if (d.search.length || d.searchRelated?.length) filters.q = { kind: 'q' };
  if (d.changelog) {
    filters.created_by_request = { kind: 'request', actions: ['create'] };
    filters.updated_by_request = { kind: 'request', actions: ['update'] };
    filters.modified_by_request = { kind: 'request', actions: ['create', 'update'] };
  }

  // Filters other models' generic relations bring to every model they may point at (contacts).
  for (const other of schema.models) {
    for (const [fieldName, g] of Object.entries(other.spec.fields)) {
      if (g.type !== 'generic_fk' || !g.reverse_filters) continue;
      if (!Object.values(all.get(other.spec.model)!.fields[fieldName].types ?? {}).includes(d.name)) continue;
      const since = all.get(other.spec.model)!.fields[fieldName].typesSince?.[d.contentType];
      for (const [name, rf] of Object.entries(g.reverse_filters)) filters[name] = { ...reverseFilter(all, other.spec.model, fieldName, rf.path, rf.by), ...(since ? { since } : {}) };
    }
  }

  for (const [name, f] of Object.entries(spec.filters ?? {})) {
    let filter: FilterDefinition;
    if (f.ignore) filter = { kind: 'ignored', reason: f.ignore };
    else if (f.method) filter = { kind: 'method', method: f.method, ...(typeof f.lookups === 'string' ? { family: f.lookups } : {}) };
    else if (f.field) {
      const target = d.fields[f.field];
      const family: LookupFamily = target ? familyOf(target.type) ?? 'exact' : 'number';
      filter = { kind: 'field', field: f.field, family, lookup: f.lookup };
    }
    else if (f.reverse && f.path) {
      const [model, field, ...then] = f.reverse.split('.');
      // a chain of relations from the other model (CircuitTermination.circuit.provider): the steps after the first
      filter = reverseFilter(all, model, field, f.path, f.by, then.length ? pathSteps(all.get(model)!, all, [field, ...then].join('.')).slice(1) : undefined);
    } else if (f.reverse) {
      const [model, field] = f.reverse.split('.');
      const byField = all.get(model)!.fields[f.by ?? 'id'];
      const family = typeof f.lookups === 'string' ? f.lookups : f.lookups === true && byField ? familyOf(byField.type) ?? undefined : undefined;
      filter = { kind: 'reverse', model, field, ...(f.by ? { by: f.by } : {}), ...(f.boolean ? { boolean: true } : {}), ...(family ? { family } : {}) };
    } else {
      const steps = pathSteps(d, all, f.path!);
      const end = all.get(steps[steps.length - 1].model)!;
      const by = f.by ?? 'id';
      const byField = end.fields[by];
      // `lookups: true` gives the lookups of the `by` field's type (ids are numbers)
      const family: LookupFamily = !f.lookups ? 'exact' : by === 'id' ? 'number' : (byField && familyOf(byField.type)) ?? 'exact';
      filter = { kind: 'path', path: steps, by, family, tree: end.tree && !f.boolean && f.descendants !== false, ...(f.boolean ? { boolean: true } : {}) };
    }
    filters[name] = { ...filter, ...versionKeys(f) };
  }
  return Object.fromEntries(Object.entries(filters).sort(([a], [b]) => a.localeCompare(b)));
}

/** The `since:` / `until:` keys a field or declared filter sets. */
function versionKeys(x: { since?: string; until?: string }): { since?: string; until?: string } {
  return { ...(x.since ? { since: x.since } : {}), ...(x.until ? { until: x.until } : {}) };
}

/** Objects that rows of `model` point at through `field`, matched by `by` at the end of `path` from those rows. */
function reverseFilter(all: Map<string, ModelDefinition>, model: string, field: string, path: string, by = 'id', then?: PathStep[]): FilterDefinition {
  const steps = pathSteps(all.get(model)!, all, path);
  const end = all.get(steps[steps.length - 1].model)!;
  return { kind: 'reverse', model, field, ...(then ? { then } : {}), by, path: steps, tree: end.tree };
}

function pathSteps(d: ModelDefinition, all: Map<string, ModelDefinition>, path: string): PathStep[] {
  const steps: PathStep[] = [];
  let current = d;
  for (const part of splitPath(path)) {
    const generic = /^(\w+)\[([\w.]+)\]$/.exec(part);
    const field = current.fields[generic ? generic[1] : part];
    if (field.type === 'generic_fk') {
      const model = generic ? field.types![generic[2]] : Object.values(field.types!)[0];
      steps.push({ field: field.name, model, contentType: generic ? generic[2] : undefined });
      current = all.get(model)!;
    } else {
      steps.push({ field: field.name, model: field.to! });
      current = all.get(field.to!)!;
    }
  }
  return steps;
}

/**
 * A generic relation's `reverse_tab` (a contact assignment's object): a tab on the page of every model
 * it may point at, listing the rows that point at the object (by the type, a literal, and the id).
 * Types it reaches only from a later API version are left out: the web interface reads the default one.
 */
function addReverseTabs(schema: LoadedSchema, definitions: Map<string, ModelDefinition>): void {
  for (const { spec } of schema.models) {
    for (const [fieldName, g] of Object.entries(spec.fields)) {
      if (g.type !== 'generic_fk' || !g.reverse_tab) continue;
      const field = definitions.get(spec.model)!.fields[fieldName];
      for (const [contentType, target] of Object.entries(field.types ?? {})) {
        if (field.typesSince?.[contentType]) continue;
        const d = definitions.get(target)!;
        d.ui ??= { tabs: [], patterns: [], panels: [], columnViews: [] };
        d.ui.tabs.push({ path: g.reverse_tab.path, model: spec.model, label: g.reverse_tab.label, ...(g.reverse_tab.add_label ? { add: fieldName, addLabel: g.reverse_tab.add_label } : {}), filter: { [field.typeKey ?? `${fieldName}_type`]: `=${contentType}`, [`${fieldName}_id`]: 'id' } });
      }
    }
  }
}
