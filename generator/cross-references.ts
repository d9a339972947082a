/**
 * The rules between files of schema/: unique models, paths and tables; then, model by model, its
 * fields, settings and filters against the others; and nested forms that end.
 */
import type { ChoiceSet as ChoiceSetFile } from '../generated/schema-format.js';
import { schemaIndex, type LoadedModel } from './schema-index.js';
import { checkFields } from './check-fields.js';
import { checkModelRules } from './check-model.js';
import { checkFilters } from './check-filters.js';

/** Adds to `problems` every cross-file rule the models break. */
export function checkCrossReferences(
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

  const index = schemaIndex(models, byName);
  for (const m of models) {
    checkFields(m, index, choiceSets, problems);
    checkModelRules(m, index, hooksDir, problems);
    checkFilters(m, index, problems);
  }
  checkNestingTerminates(models, byName, problems);
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
