/**
 * Reads schema/ and checks it: first each file against generator/schema-format.json, then the
 * cross-file rules (relations, choice sets, field references). Every problem is collected, so one run
 * reports them all.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';
import { splitPath } from '../runtime/core/paths.js';
import type { ModelFile, ChoiceSet as ChoiceSetFile, Versions as VersionsFile, Menu as MenuFile } from '../generated/schema-format.js';
import { checkMenu, MENU_FILE } from './menu.js';

export interface LoadedModel {
  file: string;
  spec: ModelFile;
}

export interface LoadedSchema {
  models: LoadedModel[];
  choiceSets: Map<string, ChoiceSetFile>;
  /** schema/versions.yaml: the API versions served */
  versions: VersionsFile;
  /** schema/menu.yaml: the web interface's menu */
  menu: MenuFile;
}

/** The file of API versions, beside the model folders. */
export const VERSIONS_FILE = 'versions.yaml';

export class SchemaErrors extends Error {
  constructor(public readonly problems: string[]) {
    super(`schema/ has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  }
}

/** `counts.<name>.model` for a relation every model has (its `tags`). */
export const EVERY_MODEL = '*';
const SYSTEM_FIELDS = ['id', 'url', 'display', 'tags', 'custom_fields', 'created', 'last_updated'];

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return yamlFiles(path);
      return entry.name.endsWith('.yaml') && entry.name !== VERSIONS_FILE && entry.name !== MENU_FILE ? [path] : [];
    })
    .sort();
}

export function loadSchema(root: string, formatFile: string, hooksDir: string): LoadedSchema {
  const problems: string[] = [];
  const format = JSON.parse(readFileSync(formatFile, 'utf8'));
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: false });
  ajv.addSchema(format);
  const validateModel = ajv.compile({ $ref: `${format.$id}` });
  const validateChoices = ajv.compile({ $ref: `${format.$id}#/$defs/choiceSet` });
  const validateVersions = ajv.compile({ $ref: `${format.$id}#/$defs/versions` });
  const validateMenu = ajv.compile({ $ref: `${format.$id}#/$defs/menu` });
  const versions = parse(readFileSync(join(root, VERSIONS_FILE), 'utf8')) as VersionsFile;
  if (!validateVersions(versions)) for (const e of validateVersions.errors ?? []) problems.push(`schema/${VERSIONS_FILE}: ${e.instancePath || '(top)'}: ${e.message}`);
  else if (!versions.versions.some((v) => v.version === versions.default)) problems.push(`schema/${VERSIONS_FILE}: default: '${versions.default}' is not one of the versions`);
  const known = new Set(versions.versions?.map((v) => v.version) ?? []);

  const models: LoadedModel[] = [];
  const choiceSets = new Map<string, ChoiceSetFile>();
  for (const path of yamlFiles(root)) {
    const file = relative(join(root, '..'), path);
    let data: unknown;
    try {
      data = parse(readFileSync(path, 'utf8'));
    } catch (error) {
      problems.push(`${file}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    const isChoices = file.includes('/choices/');
    const validate = isChoices ? validateChoices : validateModel;
    if (!validate(data)) {
      for (const e of validate.errors ?? []) {
        const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top)';
        const extra = e.params && 'additionalProperty' in e.params ? ` '${e.params.additionalProperty}'` : '';
        const allowed = e.params && 'allowedValues' in e.params ? ` (one of ${(e.params.allowedValues as string[]).join(', ')})` : '';
        problems.push(`${file}: ${where}: ${e.message}${extra}${allowed}`);
      }
      continue;
    }
    if (isChoices) {
      const set = data as ChoiceSetFile;
      if (choiceSets.has(set.name)) problems.push(`${file}: name: choice set '${set.name}' is defined twice`);
      choiceSets.set(set.name, set);
    } else {
      models.push({ file, spec: data as ModelFile });
    }
  }

  for (const m of models) if (m.spec.owner) addOwner(m.spec);
  checkCrossReferences(models, choiceSets, hooksDir, problems);
  checkVersionKeys(models, known, problems);
  const menu = parse(readFileSync(join(root, MENU_FILE), 'utf8')) as MenuFile;
  if (!validateMenu(menu)) for (const e of validateMenu.errors ?? []) problems.push(`schema/${MENU_FILE}: ${e.instancePath || '(top)'}: ${e.message}`);
  else checkMenu(menu, new Map(models.map((m) => [m.spec.model, m.spec.app])), problems);
  if (problems.length) throw new SchemaErrors(problems);
  return { models, choiceSets, versions, menu };
}

/**
 * `owner: true`: NetBox 4.5's owner of an object, a relation that exists from 4.6 on, placed where
 * NetBox's serializers show it (before `comments`), with its group's filters.
 */
function addOwner(spec: ModelFile): void {
  const owner = { type: 'fk', to: 'Owner', nullable: true, on_delete: 'protect', since: '4.0' } as ModelFile['fields'][string];
  const entries = Object.entries(spec.fields);
  const at = entries.findIndex(([name]) => name === 'comments');
  entries.splice(at < 0 ? entries.length : at, 0, ['owner', owner]);
  spec.fields = Object.fromEntries(entries);
  spec.filters = { ...spec.filters, owner_group_id: { path: 'owner.group', since: '4.0' }, owner_group: { path: 'owner.group', by: 'name', since: '4.0' } } as ModelFile['filters'];
}

/** A model flag is set by `true` or by a block of settings (`cabling:`). */
const isSet = (v: unknown): boolean => v === true || (v !== null && typeof v === 'object');

function checkCrossReferences(
  models: LoadedModel[],
  choiceSets: Map<string, ChoiceSetFile>,
  hooksDir: string,
  problems: string[],
): void {
  const byName = new Map<string, LoadedModel>();
  const seen = { paths: new Map<string, string>(), tables: new Map<string, string>() };
  for (const m of models) {
    const { spec, file } = m;
    if (byName.has(spec.model)) problems.push(`${file}: model: '${spec.model}' is also defined in ${byName.get(spec.model)!.file}`);
    byName.set(spec.model, m);
    const path = `/api/${spec.app}/${spec.endpoint}/`;
    if (seen.paths.has(path)) problems.push(`${file}: endpoint: duplicate path ${path} (also ${seen.paths.get(path)})`);
    seen.paths.set(path, file);
    const table = spec.table ?? `${spec.app}_${spec.model.toLowerCase()}`;
    if (seen.tables.has(table)) problems.push(`${file}: table: duplicate table ${table} (also ${seen.tables.get(table)})`);
    seen.tables.set(table, file);
  }

  const contentTypes = new Map(models.map(({ spec }) => [spec.content_type ?? `${spec.app}.${spec.model.toLowerCase()}`, spec.model]));
  /** content type → model of a generic relation; '*' is every model */
  const flagged = (flag: string) => new Map(models.filter(({ spec }) => isSet((spec as unknown as Record<string, unknown>)[flag])).map(({ spec }) => [spec.content_type ?? `${spec.app}.${spec.model.toLowerCase()}`, spec.model]));
  const targetsOf = (types: unknown): Record<string, string> => (types === '*' ? Object.fromEntries(contentTypes) : typeof types === 'string' ? Object.fromEntries(flagged(types)) : (types as Record<string, string>) ?? {});
  /** Whether Model.field is an fk or a generic fk that may point at `to`. */
  const pointsAt = (ref: string, to: string): boolean => {
    const [model, field] = ref.split('.');
    const f = fieldOf(model, field);
    return !!f && ((f.type === 'fk' && f.to === to) || (f.type === 'generic_fk' && Object.values(targetsOf(f.types)).includes(to)));
  };
  const fieldOf = (model: string, field: string) => byName.get(model)?.spec.fields[field];
  /** `Model.fk.fk…`: a chain of fks from another model whose last one points at `to` (reverse filters with a path). */
  const chainPointsAt = (ref: string, to: string): boolean => {
    const [model, ...fields] = ref.split('.');
    let current = model;
    for (const field of fields.slice(0, -1)) {
      const f = fieldOf(current, field);
      if (f?.type !== 'fk' || !f.to) return false;
      current = f.to;
    }
    return pointsAt(`${current}.${fields[fields.length - 1]}`, to);
  };
  const genericColumn = (model: string, field: string) => /_(type|id)$/.test(field) && fieldOf(model, field.replace(/_(type|id)$/, ''))?.type === 'generic_fk';
  const hasField = (model: string, field: string) => SYSTEM_FIELDS.includes(field) || !!fieldOf(model, field) || !!byName.get(model)?.spec.counts?.[field] || genericColumn(model, field);

  /** Follows a dotted path such as `device_type.manufacturer.name`; returns an error or null. */
  const walk = (model: string, path: string, wantField: boolean): string | null => {
    const parts = splitPath(path);
    let current = model;
    for (let i = 0; i < parts.length; i++) {
      const generic = /^(\w+)\[([\w.]+)\]$/.exec(parts[i]);
      const name = generic ? generic[1] : parts[i];
      const last = i === parts.length - 1;
      const field = fieldOf(current, name);
      if (last && wantField) return hasField(current, name) ? null : `'${name}' is not a field of ${current}`;
      if (!field) return `'${name}' is not a field of ${current}`;
      if ((field.type === 'fk' || field.type === 'm2m') && field.to) current = field.to;
      else if (field.type === 'generic_fk' && generic && targetsOf(field.types)[generic[2]]) current = targetsOf(field.types)[generic[2]];
      else if (field.type === 'generic_fk' && !generic && last) return null;
      else return `'${name}' of ${current} is not a relation${field.type === 'generic_fk' ? ' (name a type: field[app.model])' : ''}`;
    }
    return null;
  };

  for (const { spec, file } of models) {
    const fields = spec.fields;
    for (const [name, f] of Object.entries(fields)) {
      const at = `${file}: fields.${name}`;
      // A model without the runtime's timestamps may declare its own created/last_updated (e.g. date-times).
      const ownTimestamp = (name === 'created' || name === 'last_updated') && spec.timestamps === false;
      if (SYSTEM_FIELDS.includes(name) && !ownTimestamp) problems.push(`${at}: '${name}' is added by the runtime; do not declare it`);
      if ((f.type === 'fk' || f.type === 'm2m') && !f.to) problems.push(`${at}: ${f.type} needs 'to'`);
      if (f.natural && f.type !== 'string') problems.push(`${at}: natural: only string fields are ordered naturally`);
      if (f.to && !byName.has(f.to)) problems.push(`${at}: to: unknown model '${f.to}'`);
      for (const shared of f.same === undefined ? [] : typeof f.same === 'string' ? [f.same] : f.same) {
        if (f.type !== 'fk') problems.push(`${at}: same: only relations (fk) name relations to share`);
        else if (fields[shared]?.type !== 'fk') problems.push(`${at}: same: '${shared}' is not a relation of ${spec.model}`);
        else if (f.to && byName.get(f.to)?.spec.fields[shared]?.to !== fields[shared].to) problems.push(`${at}: same: ${f.to} has no relation '${shared}' to ${fields[shared].to}`);
      }
      if (f.type === 'choice') {
        if (!f.choices) problems.push(`${at}: choice needs 'choices'`);
        else if (!choiceSets.has(f.choices)) problems.push(`${at}: choices: unknown choice set '${f.choices}'`);
        else if (f.default !== undefined && (f.default as unknown) !== '' && !choiceSets.get(f.choices)!.choices.some((c) => c.value === (f.default as unknown))) {
          problems.push(`${at}: default: '${String(f.default)}' is not in choice set '${f.choices}'`);
        }
      }
      if (f.type === 'generic_fk') {
        if (!f.types || (typeof f.types === 'object' && !Object.keys(f.types).length)) problems.push(`${at}: generic_fk needs 'types'`);
        else if (typeof f.types === 'string' && f.types !== '*' && !flagged(f.types).size) problems.push(`${at}: types: no model sets '${f.types}'`);
        for (const [name, rf] of Object.entries(f.reverse_filters ?? {})) {
          for (const target of Object.values(targetsOf(f.types))) {
            const error = walk(spec.model, rf.path, false);
            if (error) { problems.push(`${at}: reverse_filters.${name}: path: ${error}`); break; }
            if (fieldOf(target, name)) problems.push(`${at}: reverse_filters.${name}: ${target} has a field of that name`);
          }
        }
        for (const [name, x] of Object.entries(f.extra ?? {})) {
          for (const ct of x.on) if (!Object.keys(targetsOf(f.types)).includes(ct)) problems.push(`${at}: extra.${name}: on: '${ct}' is not one of the relation's types`);
        }
        for (const [ct, target] of Object.entries(typeof f.types === 'object' ? f.types : {})) {
          const t = byName.get(target);
          if (!t) problems.push(`${at}: types: unknown model '${target}'`);
          else if ((t.spec.content_type ?? `${t.spec.app}.${t.spec.model.toLowerCase()}`) !== ct) problems.push(`${at}: types: '${ct}' is not the content type of ${target}`);
        }
      }
      if (f.sum_of) {
        const { model, field, value } = f.sum_of;
        if (f.type !== 'integer') problems.push(`${at}: sum_of: only integer fields hold a sum`);
        if (!pointsAt(`${model}.${field}`, spec.model)) problems.push(`${at}: sum_of: ${model}.${field} is not an fk to ${spec.model}`);
        else if (fieldOf(model, value)?.type !== 'integer') problems.push(`${at}: sum_of: '${value}' is not an integer field of ${model}`);
      }
      if (f.type === 'alias') {
        const target = f.of ? fields[f.of] : undefined;
        if (!target) problems.push(`${at}: of: '${f.of ?? ''}' is not a field of ${spec.model}`);
        else if (target.type === 'alias') problems.push(`${at}: of: an alias cannot mirror another alias`);
      }
      if (f.type === 'computed') {
        const src = f.source;
        const coalesce = src?.startsWith('coalesce:') ? src.slice(9).split(',') : null;
        for (const name of coalesce ?? []) if (fields[name]?.type !== 'fk') problems.push(`${at}: source: '${name}' is not a relation of ${spec.model}`);
        const any = src?.startsWith('any:') ? src.slice(4).split(',') : null;
        for (const name of any ?? []) if (!fields[name] || ['computed', 'm2m', 'alias'].includes(fields[name].type)) problems.push(`${at}: source: '${name}' is not a stored field of ${spec.model}`);
        const reverse = src?.startsWith('reverse:') ? src.slice(8) : null;
        if (reverse && !pointsAt(reverse, spec.model)) problems.push(`${at}: source: ${reverse} is not a relation of another model to ${spec.model}`);
        const one = src?.startsWith('reverse_one:') ? src.slice(12) : null;
        if (one && !pointsAt(one, spec.model)) problems.push(`${at}: source: ${one} is not a relation of another model to ${spec.model}`);
        for (const name of one ? [...Object.keys(f.where ?? {}), ...(f.form ?? [])] : []) {
          if (!hasField(one!.split('.')[0], name)) problems.push(`${at}: '${name}' is not a field of ${one!.split('.')[0]}`);
        }
        const ok = f.value !== undefined || src === 'display' || src === 'tree_depth' || src === 'revealed' || (src?.startsWith('hook:') && src.length > 5) || !!coalesce?.length || !!reverse || !!one || !!any?.length;
        if (!ok) problems.push(`${at}: source: give 'display', 'tree_depth', 'revealed', 'hook:<name>', 'coalesce:<fk>,<fk>', 'reverse:<Model>.<field>', 'reverse_one:<Model>.<field>', 'any:<field>,<field>' or a constant 'value'`);
        if (src === 'tree_depth' && !spec.tree) problems.push(`${at}: source: tree_depth needs 'tree: true'`);
        if (src?.startsWith('hook:') && !(spec.hooks ?? []).length) problems.push(`${at}: source: computed by a hook, but the model names no hooks`);
      }
    }
    if (spec.tree) {
      const parent = fields.parent;
      if (!parent || parent.type !== 'fk' || parent.to !== spec.model) problems.push(`${file}: tree: a tree model needs 'parent: { type: fk, to: ${spec.model} }'`);
    }
    for (const hook of spec.hooks ?? []) {
      if (!existsSync(join(hooksDir, `${hook}.ts`))) problems.push(`${file}: hooks: no file runtime/hooks/${hook}.ts`);
    }
    for (const name of Object.keys(spec.actions ?? {})) {
      if (!(spec.hooks ?? []).length) problems.push(`${file}: actions.${name}: served by a hook, but the model names no hooks`);
    }
    for (const key of ['brief', 'search', 'ordering'] as const) {
      for (const raw of spec[key] ?? []) {
        const name = raw.replace(/^-/, '');
        // `q` may search a field of a related object (contact.name)
        if (key === 'search' && name.includes('.')) { const error = walk(spec.model, name, true); if (error) problems.push(`${file}: search: ${name}: ${error}`); continue; }
        if (!hasField(spec.model, name)) problems.push(`${file}: ${key}: '${name}' is not a field of ${spec.model}`);
      }
    }
    for (const [ref, names] of Object.entries(spec.search_related ?? {})) {
      if (!pointsAt(ref, spec.model) || fieldOf(ref.split('.')[0], ref.split('.')[1])?.type !== 'fk') problems.push(`${file}: search_related: ${ref} is not an fk of another model to ${spec.model}`);
      else for (const name of names) if (!fieldOf(ref.split('.')[0], name)) problems.push(`${file}: search_related: '${name}' is not a field of ${ref.split('.')[0]}`);
    }
    for (const name of spec.ui?.columns ?? []) {
      if (!hasField(spec.model, name)) problems.push(`${file}: ui.columns: '${name}' is not a field of ${spec.model}`);
    }
    for (const [tab, def] of Object.entries(spec.ui?.tabs ?? {})) {
      if (!byName.has(def.model)) problems.push(`${file}: ui.tabs.${tab}: unknown model '${def.model}'`);
      for (const [param, path] of Object.entries(def.filter)) {
        const head = path.split('.')[0];
        if (head !== 'id' && !hasField(spec.model, head)) problems.push(`${file}: ui.tabs.${tab}.filter.${param}: '${head}' is not a field of ${spec.model}`);
      }
      if (def.add && byName.has(def.model) && !hasField(def.model, def.add)) problems.push(`${file}: ui.tabs.${tab}.add: '${def.add}' is not a field of ${def.model}`);
      if (def.view && !existsSync(join(hooksDir, '..', 'ui', 'tab-views', `${def.view}.ts`))) problems.push(`${file}: ui.tabs.${tab}.view: no file runtime/ui/tab-views/${def.view}.ts`);
    }
    for (const name of spec.ui?.patterns ?? []) {
      if (!hasField(spec.model, name)) problems.push(`${file}: ui.patterns: '${name}' is not a field of ${spec.model}`);
    }
    for (const panel of spec.ui?.panels ?? []) {
      if (!existsSync(join(hooksDir, '..', 'ui', 'panels', `${panel}.ts`))) problems.push(`${file}: ui.panels: no file runtime/ui/panels/${panel}.ts`);
    }
    for (const view of spec.ui?.column_views ?? []) {
      if (!existsSync(join(hooksDir, '..', 'ui', 'column-views', `${view}.ts`))) problems.push(`${file}: ui.column_views: no file runtime/ui/column-views/${view}.ts`);
    }
    if (spec.template_for && !byName.has(spec.template_for)) problems.push(`${file}: template_for: unknown model '${spec.template_for}'`);
    if (spec.templates) {
      if (fields[spec.templates.from]?.type !== 'fk') problems.push(`${file}: templates.from: '${spec.templates.from}' is not a relation of ${spec.model}`);
      for (const [name, path] of Object.entries(spec.templates.names ?? {})) {
        const error = walk(spec.model, path, true);
        if (error) problems.push(`${file}: templates.names.${name}: ${error}`);
      }
    }
    if (spec.cabling) checkCabling(spec, file, byName, contentTypes, problems);
    if (spec.changelog_related && !['fk', 'generic_fk'].includes(fields[spec.changelog_related]?.type)) problems.push(`${file}: changelog_related: '${spec.changelog_related}' is not a relation of ${spec.model}`);
    for (const name of spec.unique_nulls_match ?? []) {
      if (fields[name]?.type !== 'fk') problems.push(`${file}: unique_nulls_match: '${name}' is not a relation of ${spec.model}`);
      else if (!(spec.unique_together ?? []).some((g) => g.includes(name))) problems.push(`${file}: unique_nulls_match: '${name}' is in no unique_together group`);
    }
    for (const group of spec.unique_together ?? []) {
      for (const name of group) if (!fields[name]) problems.push(`${file}: unique_together: '${name}' is not a field of ${spec.model}`);
    }
    for (const name of spec.unique_blank_exempt ?? []) {
      if (!['string', 'text', 'slug'].includes(fields[name]?.type ?? '')) problems.push(`${file}: unique_blank_exempt: '${name}' is not a string field of ${spec.model}`);
      else if (!(spec.unique_together ?? []).some((g) => g.includes(name))) problems.push(`${file}: unique_blank_exempt: '${name}' is in no unique_together group`);
    }
    if (spec.lookup && spec.lookup !== 'id' && !fields[spec.lookup]) problems.push(`${file}: lookup: '${spec.lookup}' is not a field of ${spec.model}`);
    /** the field a dotted path of this model ends at, if it walks */
    const finalField = (path: string) => {
      const parts = splitPath(path);
      let current = spec.model;
      for (const part of parts.slice(0, -1)) { const f = fieldOf(current, part); if (!f?.to) return undefined; current = f.to; }
      return fieldOf(current, parts[parts.length - 1]);
    };
    for (const template of spec.display) {
      for (const [, path] of template.matchAll(/\{([^}]+)\}/g)) {
        // `{choice.label}`: a choice field's label
        const label = /^(.*)\.label$/.exec(path);
        const labelled = label ? finalField(label[1]) : undefined;
        if (labelled?.type === 'choice') { const error = walk(spec.model, label![1], true); if (error) problems.push(`${file}: display: {${path}}: ${error}`); continue; }
        const error = walk(spec.model, path, true);
        if (error) problems.push(`${file}: display: {${path}}: ${error}`);
      }
    }
    for (const [name, count] of Object.entries(spec.counts ?? {})) {
      if (count.model === EVERY_MODEL) {
        // Every model's `tags` (the system relation through extras_taggeditem) points at Tag.
        if (count.field !== 'tags' || spec.model !== 'Tag') problems.push(`${file}: counts.${name}: model '${EVERY_MODEL}' counts only every model's tags, on Tag`);
        continue;
      }
      const target = fieldOf(count.model, count.field);
      if (!byName.has(count.model)) problems.push(`${file}: counts.${name}: unknown model '${count.model}'`);
      else if (!target) problems.push(`${file}: counts.${name}: '${count.field}' is not a field of ${count.model}`);
      else if (!((target.type === 'fk' || target.type === 'm2m') && target.to === spec.model) && !(target.type === 'generic_fk' && Object.values(targetsOf(target.types)).includes(spec.model))) {
        problems.push(`${file}: counts.${name}: ${count.model}.${count.field} does not point at ${spec.model}`);
      }
    }
    for (const [name, filter] of Object.entries(spec.filters ?? {})) {
      const at = `${file}: filters.${name}`;
      // `reverse` may come with a `path` followed from the other model's rows.
      const modes = [filter.reverse ?? filter.path, filter.method, filter.field, filter.ignore].filter((x) => x !== undefined).length;
      if (modes !== 1) problems.push(`${at}: give exactly one of path, reverse, method, field, ignore`);
      if (filter.field !== undefined && !hasField(spec.model, filter.field)) problems.push(`${at}: field: '${filter.field}' is not a field of ${spec.model}`);
      if ((filter.field === undefined) !== (filter.lookup === undefined)) problems.push(`${at}: field and lookup go together`);
      if (filter.path && filter.reverse) {
        const error = walk(filter.reverse.split('.')[0], filter.path, false);
        if (!chainPointsAt(filter.reverse, spec.model)) problems.push(`${at}: reverse: ${filter.reverse} does not point at ${spec.model}`);
        else if (error) problems.push(`${at}: path: ${error}`);
      } else if (filter.path) {
        const error = walk(spec.model, filter.path, false);
        if (error) problems.push(`${at}: path: ${error}`);
        else if (filter.by) {
          const end = finalModel(byName, spec.model, filter.path);
          if (end && filter.by !== 'id' && !fieldOf(end, filter.by)) problems.push(`${at}: by: '${filter.by}' is not a field of ${end}`);
        }
      }
      if (filter.reverse && !filter.path) {
        const [model, field] = filter.reverse.split('.');
        const m2m = fieldOf(model, field)?.type === 'm2m' && fieldOf(model, field)?.to === spec.model;
        if (!m2m && !pointsAt(filter.reverse, spec.model)) problems.push(`${at}: reverse: ${filter.reverse} is not an fk, generic fk or m2m to ${spec.model}`);
        else if (filter.by && !fieldOf(model, filter.by)) problems.push(`${at}: by: '${filter.by}' is not a field of ${model}`);
      }
    }
  }
  checkNestingTerminates(models, byName, problems);
}

/** `cabling:`: peers are cabled models that name this one back; the fields it names exist. */
function checkCabling(spec: ModelFile, file: string, byName: Map<string, LoadedModel>, contentTypes: Map<string, string>, problems: string[]): void {
  const c = spec.cabling!;
  const at = `${file}: cabling`;
  const own = spec.content_type ?? `${spec.app}.${spec.model.toLowerCase()}`;
  for (const peer of c.peers) {
    const other = byName.get(contentTypes.get(peer) ?? '')?.spec;
    if (!other) problems.push(`${at}.peers: '${peer}' is not the content type of a model`);
    else if (!other.cabling) problems.push(`${at}.peers: ${other.model} declares no cabling`);
    else if (!other.cabling.peers.includes(own)) problems.push(`${at}.peers: ${other.model} does not name ${own} among its peers`);
  }
  const relation = (name: string | undefined, key: string) => {
    if (name !== undefined && spec.fields[name]?.type !== 'fk') problems.push(`${at}.${key}: '${name}' is not a relation of ${spec.model}`);
  };
  const field = (name: string | undefined, key: string) => {
    if (name !== undefined && !spec.fields[name]) problems.push(`${at}.${key}: '${name}' is not a field of ${spec.model}`);
  };
  relation(c.parent, 'parent');
  relation(c.continue_via, 'continue_via');
  field(c.not_cabled?.field, 'not_cabled.field');
  const t = c.through;
  if (t && c.role !== 'pass_through') problems.push(`${at}.through: only a pass_through has one`);
  if (!t && c.role === 'pass_through') problems.push(`${at}: a pass_through needs 'through'`);
  if (t?.kind === 'to_position') {
    relation(t.to, 'through.to');
    field(t.position, 'through.position');
    if (!t.to || !t.position) problems.push(`${at}.through: to_position needs 'to' and 'position'`);
  }
  if (t?.kind === 'from_positions') {
    field(t.positions, 'through.positions');
    if (!t.positions) problems.push(`${at}.through: from_positions needs 'positions'`);
  }
  if (t?.kind === 'sibling') {
    relation(t.group, 'through.group');
    field(t.side, 'through.side');
    for (const name of t.terminus ?? []) relation(name, 'through.terminus');
    if (!t.group || !t.side) problems.push(`${at}.through: sibling needs 'group' and 'side'`);
  }
}

export function finalModel(byName: Map<string, LoadedModel>, model: string, path: string): string | undefined {
  let current: string | undefined = model;
  for (const part of splitPath(path)) {
    const generic = /^(\w+)\[([\w.]+)\]$/.exec(part);
    const field: ModelFile['fields'][string] | undefined = current ? byName.get(current)?.spec.fields[generic ? generic[1] : part] : undefined;
    if (!field) return undefined;
    current = field.type === 'fk' || field.type === 'm2m' ? field.to : generic && field.types !== '*' ? (field.types as Record<string, string> | undefined)?.[generic[2]] : undefined;
  }
  return current;
}

/** Nested forms embed the nested forms of their brief relations; that must not loop. */
function checkNestingTerminates(models: LoadedModel[], byName: Map<string, LoadedModel>, problems: string[]): void {
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (name: string, trail: string[]): void => {
    if (done.has(name)) return;
    if (visiting.has(name)) {
      problems.push(`${byName.get(name)!.file}: brief: nested forms loop: ${[...trail, name].join(' → ')}`);
      return;
    }
    visiting.add(name);
    const spec = byName.get(name)!.spec;
    for (const field of spec.brief) {
      const f = spec.fields[field];
      if (f?.type === 'fk' && f.to && byName.has(f.to)) visit(f.to, [...trail, name]);
    }
    visiting.delete(name);
    done.add(name);
  };
  for (const m of models) visit(m.spec.model, []);
}

/** `since:`, `until:`, `convert:` and `brief_since:` name versions of schema/versions.yaml; a rename's fields exist. */
function checkVersionKeys(models: LoadedModel[], known: Set<string>, problems: string[]): void {
  const major = new Set([...known].map((v) => v.split('.')[0]));
  // "4.0" names the first release of a major version: a version served, or the start of a major one served
  const ok = (v: string) => known.has(v) || (v.endsWith('.0') && major.has(v.split('.')[0]));
  for (const { spec, file } of models) {
    for (const key of ['since', 'until'] as const) if (spec[key] && !ok(spec[key]!)) problems.push(`${file}: ${key}: unknown version '${spec[key]}'`);
    for (const v of Object.keys(spec.brief_since ?? {})) if (!ok(v)) problems.push(`${file}: brief_since: unknown version '${v}'`);
    for (const v of Object.keys(spec.moved ?? {})) if (!ok(v)) problems.push(`${file}: moved: unknown version '${v}'`);
    for (const [v, list] of Object.entries(spec.brief_since ?? {})) {
      for (const name of list) if (!spec.fields[name] && !SYSTEM_FIELDS.includes(name) && !spec.counts?.[name]) problems.push(`${file}: brief_since.${v}: unknown field '${name}'`);
    }
    for (const [name, f] of Object.entries(spec.fields)) {
      for (const key of ['since', 'until', 'read_only_since'] as const) if (f[key] && !ok(f[key]!)) problems.push(`${file}: fields.${name}.${key}: unknown version '${f[key]}'`);
      for (const v of Object.keys(f.convert ?? {})) if (!ok(v)) problems.push(`${file}: fields.${name}.convert: unknown version '${v}'`);
    }
    for (const [name, f] of Object.entries(spec.filters ?? {})) {
      for (const key of ['since', 'until'] as const) if (f[key] && !ok(f[key]!)) problems.push(`${file}: filters.${name}.${key}: unknown version '${f[key]}'`);
    }
  }
}
