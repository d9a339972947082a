/**
 * Webhooks: the checks across fields NetBox makes when a webhook is saved. A CA file needs SSL
 * verification and templates must parse (errors in rendering them show up on the delivery instead).
 * When the NetBox 3.6 trigger fields are given, object types must be ones whose changes are
 * captured, at least one event must be chosen and conditions must parse; they are kept in step with
 * the webhook's companion event rule (legacy-triggers.ts).
 */
import type { ModelHooks } from '../data/registry.js';
import { conditionError } from '../webhooks/conditions.js';
import { templateError } from '../webhooks/template.js';
import { checkContentTypes, contentTypesFilter } from './object-types.js';
import { backfillCompanionRules, companionNameTaken, rulesFromWebhooks } from './legacy-triggers.js';

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';
const LEGACY_EVENTS = ['type_create', 'type_update', 'type_delete'];

function json(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? null;
  try { return JSON.parse(text); } catch { return undefined; }
}

export const webhook: ModelHooks = {
  filters: { webhook_content_types: contentTypesFilter() },
  async prepare(item, { db }) {
    const v = { ...(item.existing ?? {}), ...item.values };
    const { errors } = item;
    // The 3.6 trigger fields are optional (3.7 clients put triggers on event rules); once object
    // types or events are given, the 3.6 rules apply to them.
    const types = json(v.content_types);
    const legacy = (Array.isArray(types) ? types.length > 0 : types !== null && types !== undefined)
      || 'content_types' in item.input || LEGACY_EVENTS.some((e) => truthy(v[e]));
    if (legacy) {
      checkContentTypes(item, 'content_types', (entry) => entry.definition.changelog, 'an object type whose changes trigger webhooks');
      if (!truthy(v.type_create) && !truthy(v.type_update) && !truthy(v.type_delete)) {
        errors.add('__all__', 'At least one event type must be selected: create, update and/or delete.');
      }
      const problem = conditionError(json(v.conditions));
      if (problem) errors.add('conditions', problem);
      if (typeof v.name === 'string' && await companionNameTaken(db, v.name, item.id)) {
        errors.add('name', `An event rule named ${JSON.stringify(v.name)} acts on another webhook; the triggers of this one are kept in an event rule of the same name.`);
      }
    }
    if (!truthy(v.ssl_verification) && v.ca_file_path) errors.add('ca_file_path', 'Do not specify a CA certificate file if SSL verification is disabled.');
    for (const field of ['payload_url', 'additional_headers', 'body_template']) {
      const error = typeof v[field] === 'string' ? templateError(v[field]) : null;
      if (error) errors.add(field, `Invalid template: ${error}`);
    }
  },
  afterWrite: (rows, { db, request }) => rulesFromWebhooks({ db, request }, rows),
  startup: ({ db }) => backfillCompanionRules(db),
};
