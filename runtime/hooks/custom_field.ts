/**
 * Custom field definitions: the rules between their settings (object types, choice sets,
 * validation limits, a type that cannot change), their data_type, and the expression index that
 * makes `cf_<name>` filters fast, created for every table the field applies to.
 */
import type { ModelHooks } from '../data/registry.js';
import { byContentType } from '../data/registry.js';
import { indexCustomField } from '../data/customfields.js';
import { contentTypeIdsFilter, contentTypesFilter } from './object-types.js';
import { byContentTypeId } from './content_type.js';

const DATA_TYPES: Record<string, string> = { integer: 'integer', decimal: 'decimal', boolean: 'boolean', json: 'object', object: 'object', multiselect: 'array', multiobject: 'array' };

export const customField: ModelHooks = {
  filters: { custom_field_content_types: contentTypesFilter(), custom_field_content_type_id: contentTypeIdsFilter(), custom_field_related_object_type_id: byContentTypeId('related_object_type_id', 'object_type') },
  computed: {
    async custom_field_data_type(rows) {
      return new Map(rows.map((r) => [Number(r.id), DATA_TYPES[r.type] ?? 'string']));
    },
  },
  prepare(item) {
    const v = { ...(item.existing ?? {}), ...item.values };
    const { errors } = item;
    if (item.existing && item.values.type !== undefined && item.values.type !== item.existing.type) errors.add('type', 'The type of a custom field cannot be changed.');
    const types = JSON.parse(v.content_types ?? '[]');
    if (!Array.isArray(types) || !types.length) errors.add('content_types', 'Give at least one object type (app.model).');
    else for (const ct of types) {
      if (!byContentType.get(ct)?.definition.customFields) errors.add('content_types', `'${ct}' is not an object type that supports custom fields.`);
    }
    if (typeof v.name === 'string' && v.name.includes('__')) errors.add('name', 'Double underscores are not permitted in custom field names.');
    const isObject = v.type === 'object' || v.type === 'multiobject';
    if (isObject && !v.object_type) errors.add('object_type', 'Object fields must define an object type.');
    if (isObject && v.object_type && !byContentType.has(v.object_type)) errors.add('object_type', `Unknown object type '${v.object_type}'.`);
    if (!isObject && v.object_type) errors.add('object_type', `${v.type} fields may not define an object type.`);
    const isSelect = v.type === 'select' || v.type === 'multiselect';
    if (isSelect && !v.choice_set_id) errors.add('choice_set', 'Selection fields must specify a set of choices.');
    if (!isSelect && v.choice_set_id) errors.add('choice_set', 'Choices may be set only on selection fields.');
    if ((v.validation_minimum !== null && v.validation_minimum !== undefined) || (v.validation_maximum !== null && v.validation_maximum !== undefined)) {
      if (!['integer', 'decimal'].includes(v.type)) errors.add('validation_minimum', 'Minimum and maximum apply only to numeric fields.');
    }
    if (v.validation_regex) {
      if (!['text', 'longtext', 'url'].includes(v.type)) errors.add('validation_regex', 'Regular expression validation is supported only for text and URL fields.');
      try { new RegExp(v.validation_regex); } catch { errors.add('validation_regex', 'Not a valid regular expression.'); }
    }
    if (v.required && v.default === null && item.existing === null) {
      // NetBox allows this; existing objects simply stay without a value until edited.
    }
  },
  async afterWrite(rows, { db }) {
    for (const row of rows) {
      for (const ct of JSON.parse(row.content_types ?? '[]') as string[]) {
        const target = byContentType.get(ct);
        if (target?.definition.customFields && row.filter_logic !== 'disabled') await indexCustomField(db, target.definition.table, row.name, row.type);
      }
    }
  },
};
