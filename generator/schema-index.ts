/**
 * What the cross-file checks of schema/ look things up in: the models by name, their content types,
 * and the relations between them (whether Model.field points at a model, where a dotted path leads).
 */
import { splitPath } from '../runtime/core/paths.js';
import type { ModelFile } from '../generated/schema-format.js';

export interface LoadedModel {
  file: string;
  spec: ModelFile;
}

/** `counts.<name>.model` for a relation every model has (its `tags`). */
export const EVERY_MODEL = '*';
/** Fields the runtime adds to every model. */
export const SYSTEM_FIELDS = ['id', 'url', 'display', 'tags', 'custom_fields', 'created', 'last_updated'];

/** A model flag is set by `true` or by a block of settings (`cabling:`). */
const isSet = (v: unknown): boolean => v === true || (v !== null && typeof v === 'object');

/** The lookups of the cross-file checks over `models` (`byName`: each model by its name). */
export function schemaIndex(models: LoadedModel[], byName: Map<string, LoadedModel>) {
  const contentTypes = new Map(models.map(({ spec }) => [spec.content_type ?? `${spec.app}.${spec.model.toLowerCase()}`, spec.model]));
  /** content type → model of a generic relation; '*' is every model */
  const flagged = (flag: string) => new Map(models.filter(({ spec }) => isSet((spec as unknown as Record<string, unknown>)[flag])).map(({ spec }) => [spec.content_type ?? `${spec.app}.${spec.model.toLowerCase()}`, spec.model]));
  const targetsOf = (types: unknown): Record<string, string> => (types === '*' ? Object.fromEntries(contentTypes) : typeof types === 'string' ? Object.fromEntries(flagged(types)) : (types as Record<string, string>) ?? {});
  /** Whether Model.field is an fk, an m2m or a generic fk that may point at `to`. */
  const pointsAt = (ref: string, to: string): boolean => {
    const [model, field] = ref.split('.');
    const f = fieldOf(model, field);
    return !!f && (((f.type === 'fk' || f.type === 'm2m') && f.to === to) || (f.type === 'generic_fk' && Object.values(targetsOf(f.types)).includes(to)));
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
  return { byName, contentTypes, flagged, targetsOf, pointsAt, fieldOf, chainPointsAt, hasField, walk };
}

export type SchemaIndex = ReturnType<typeof schemaIndex>;

/** The model a dotted path of `model` ends at, if it walks. */
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
