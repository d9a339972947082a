/**
 * Webhooks: the checks across fields NetBox makes when a webhook is saved. Object types must be ones
 * whose changes are captured, at least one event must be chosen, a CA file needs SSL verification,
 * conditions must parse as a condition set, and templates must parse (errors in rendering them show
 * up on the delivery instead).
 */
import type { ModelHooks } from '../data/registry.js';
import { byContentType } from '../data/registry.js';
import { conditionError } from '../webhooks/conditions.js';
import { templateError } from '../webhooks/template.js';

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';

function json(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? null;
  try { return JSON.parse(text); } catch { return undefined; }
}

export const webhook: ModelHooks = {
  filters: {
    /** ?content_types=dcim.site: webhooks listing that object type (repeat for any of several) */
    webhook_content_types(qb, values) {
      const like = (v: string) => `%${JSON.stringify(v).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      qb.where((w) => { for (const v of values) w.orWhereRaw("?? like ? escape '\\'", ['content_types', like(v)]); });
    },
  },
  prepare(item) {
    const v = { ...(item.existing ?? {}), ...item.values };
    const { errors } = item;
    const types = json(v.content_types);
    if (!Array.isArray(types) || !types.length) errors.add('content_types', 'Give a list of one or more object types (app.model).');
    else for (const ct of types) {
      if (typeof ct !== 'string' || !byContentType.get(ct)?.definition.changelog) errors.add('content_types', `${JSON.stringify(ct)} is not an object type whose changes trigger webhooks.`);
    }
    if (!truthy(v.type_create) && !truthy(v.type_update) && !truthy(v.type_delete)) {
      errors.add('__all__', 'At least one event type must be selected: create, update and/or delete.');
    }
    if (!truthy(v.ssl_verification) && v.ca_file_path) errors.add('ca_file_path', 'Do not specify a CA certificate file if SSL verification is disabled.');
    const problem = conditionError(json(v.conditions));
    if (problem) errors.add('conditions', problem);
    for (const field of ['payload_url', 'additional_headers', 'body_template']) {
      const error = typeof v[field] === 'string' ? templateError(v[field]) : null;
      if (error) errors.add(field, `Invalid template: ${error}`);
    }
  },
};
