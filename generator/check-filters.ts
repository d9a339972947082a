/**
 * A model's declared filters: each gives one way to filter (a path, a reverse relation, a method,
 * a field or ignore), and the fields and relations it names exist.
 */
import { finalModel, type LoadedModel, type SchemaIndex } from './schema-index.js';

/** Checks the declared filters of one model. */
export function checkFilters({ spec, file }: LoadedModel, index: SchemaIndex, problems: string[]): void {
  const { byName, pointsAt, fieldOf, chainPointsAt, hasField, walk } = index;
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
