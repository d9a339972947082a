/**
 * The rules of a model's fields that reach other files of schema/: relations name models, choice
 * fields name choice sets, generic relations name content types, computed fields name what they read.
 */
import type { ChoiceSet as ChoiceSetFile } from '../generated/schema-format.js';
import { SYSTEM_FIELDS, type LoadedModel, type SchemaIndex } from './schema-index.js';

/** Checks the fields of one model. */
export function checkFields({ spec, file }: LoadedModel, index: SchemaIndex, choiceSets: Map<string, ChoiceSetFile>, problems: string[]): void {
  const { byName, flagged, targetsOf, pointsAt, fieldOf, hasField, walk } = index;
  const fields = spec.fields;
  for (const name of spec.clone ?? []) if (!fieldOf(spec.model, name)) problems.push(`${file}: clone: '${name}' is not a field of ${spec.model}`);
  for (const [name, f] of Object.entries(fields)) {
    const at = `${file}: fields.${name}`;
    // A model without the runtime's timestamps may declare its own created/last_updated (e.g. date-times).
    const ownTimestamp = (name === 'created' || name === 'last_updated') && spec.timestamps === false;
    if (SYSTEM_FIELDS.includes(name) && !ownTimestamp) problems.push(`${at}: '${name}' is added by the runtime; do not declare it`);
    if ((f.type === 'fk' || f.type === 'm2m') && !f.to) problems.push(`${at}: ${f.type} needs 'to'`);
    if (f.snapshot_of !== undefined && (f.type !== 'json' || fields[f.snapshot_of]?.type !== 'generic_fk')) problems.push(`${at}: snapshot_of: a json field naming a generic relation of the model`);
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
      // `any:` names stored fields (`!name`: true when it is not set), or fields found by `reverse_one:`
      const any = src?.startsWith('any:') ? src.slice(4).split(',').map((n) => n.replace(/^!/, '')) : null;
      const found = (name: string) => fields[name]?.type === 'computed' && !!fields[name].source?.startsWith('reverse_one:');
      for (const name of any ?? []) if (!fields[name] || (['computed', 'm2m', 'alias'].includes(fields[name].type) && !found(name))) problems.push(`${at}: source: '${name}' is not a stored field of ${spec.model}, nor a reverse_one: field`);
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
}
