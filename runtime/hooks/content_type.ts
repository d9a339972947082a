/**
 * Content types: readable by every authenticated user, without an object permission (as NetBox).
 * The rows themselves are kept by runtime/content-types.ts; the model is read-only. Also the filter
 * by content type id that models with a generic relation offer (`<relation type>_id=<id>`).
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row } from '../data/registry.js';
import { byContentType, model } from '../data/registry.js';
import { errors } from '../core/errors.js';
import { parseBoolean } from '../core/query-values.js';
import type { ModelEntry } from '../core/types.js';
import { pathsIn } from '../core/versions.js';

/** NetBox's plural of a verbose name (Django's default adds an s; NetBox's own models spell theirs out). */
function plural(name: string): string {
  if (/[^aeiou]y$/.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(name)) return `${name}es`;
  return `${name}s`;
}

/** The models contacts may be assigned to (the types of a contact assignment's object). */
const contactTargets = () => byContentType.get('tenancy.contactassignment')?.definition.fields.object?.types ?? {};

/**
 * What a model supports, in NetBox 4's feature names, read from its schema flags: a model with a
 * change log also has journaling, bookmarks, event rules, export templates and custom links.
 */
function featuresOf(entry: ModelEntry): string[] {
  const d = entry.definition;
  const features: string[] = [];
  if (d.changelog) features.push('bookmarks', 'change_logging', 'cloning', 'custom_links', 'event_rules', 'export_templates', 'journaling', 'notifications');
  if (d.customFields) features.push('custom_fields');
  if (contactTargets()[d.contentType]) features.push('contacts');
  if (d.tags) features.push('tags');
  return features.sort();
}

const entryOf = (row: Row) => byContentType.get(`${row.app_label}.${row.model}`);

/** A computed field of object types: one value per row, from the row and the model it names. */
function perRow(value: (row: Row, entry: ModelEntry | undefined, version: string | undefined) => unknown) {
  return async (rows: Row[], { version }: { version?: string }) => new Map(rows.map((r) => [Number(r.id), value(r, entryOf(r), version)]));
}

/** Rows naming one of these models (`app.model`). */
function naming(keys: string[]) {
  return (w: Knex.QueryBuilder) => {
    if (!keys.length) w.whereRaw('1 = 0');
    for (const k of keys) { const [app, name] = k.split('.'); w.orWhere({ app_label: app, model: name }); }
  };
}

export const contentType: ModelHooks = {
  selfService: true,
  // NetBox 4's object types: the same rows, with what each model is and offers
  computed: {
    object_type_app_name: perRow((r) => r.app_verbose_name ?? ''),
    object_type_model_name: perRow((r) => r.verbose_name ?? ''),
    object_type_model_name_plural: perRow((r) => plural(String(r.verbose_name ?? ''))),
    object_type_public: perRow((_r, e) => !!e),
    object_type_features: perRow((_r, e) => (e ? featuresOf(e) : [])),
    object_type_is_plugin_model: perRow(() => false),
    object_type_rest_api_endpoint: perRow((_r, e, version) => (e && (version === undefined || e.routes.versions.includes(version)) ? pathsIn(e, version).list : null)),
  },
  filters: {
    // every model of the registry is public; a content type left by a model no longer served is not
    object_type_public: (qb, values) => {
      const served = naming([...byContentType.keys()]);
      if (parseBoolean('public', values[0])) qb.where(served);
      else qb.whereNot(served);
    },
    // as NetBox's `features__icontains`
    object_type_features: (qb, values) => {
      qb.where(naming([...byContentType.values()].filter((e) => values.some((v) => featuresOf(e).some((f) => f.includes(v.toLowerCase())))).map((e) => e.definition.contentType)));
    },
  },
};

/**
 * Rows whose generic relation's type column names one of the content types with these ids; with the
 * number lookups the schema may give it (`__gt` compares ids, `__empty` asks for no type).
 */
export function byContentTypeId(param: string, column: string) {
  return (qb: Knex.QueryBuilder, values: string[], { db, lookup = 'exact' }: { db: Knex; lookup?: string }) => {
    const name = lookup === 'exact' ? param : `${param}__${lookup}`;
    if (lookup === 'empty') {
      if (parseBoolean(name, values[0])) qb.whereNull(column);
      else qb.whereNotNull(column);
      return;
    }
    const ids = values.map((v) => {
      if (!/^\d+$/.test(v)) throw errors.badFilter(name, 'Enter a whole number.');
      return Number(v);
    });
    const types = db(model('ContentType').definition.table).select(db.raw("app_label || '.' || model"));
    const op = ({ gt: '>', gte: '>=', lt: '<', lte: '<=' } as Record<string, string>)[lookup];
    if (op) types.where((w) => { for (const id of ids) w.orWhere('id', op, id); });
    else types.whereIn('id', ids);
    qb.whereIn(column, types);
  };
}
