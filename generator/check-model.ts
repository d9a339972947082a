/**
 * A model's own settings checked against the rest of schema/ and the runtime's files: trees, hooks,
 * brief/search/ordering fields, web interface settings, templates, cabling, uniqueness, display
 * templates and counts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { splitPath } from '../runtime/core/paths.js';
import { checkCabling } from './check-cabling.js';
import { EVERY_MODEL, type LoadedModel, type SchemaIndex } from './schema-index.js';

/** Checks the model-wide settings of one model. */
export function checkModelRules({ spec, file }: LoadedModel, index: SchemaIndex, hooksDir: string, problems: string[]): void {
  const { byName, contentTypes, targetsOf, pointsAt, fieldOf, hasField, walk } = index;
  const fields = spec.fields;
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
  for (const template of [spec.display, ...Object.values(spec.display_since ?? {})].flat()) {
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
}
