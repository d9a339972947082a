/**
 * Event rules: the checks NetBox makes when a rule is saved (object types whose changes are
 * captured, at least one event, conditions that parse, an action NetLedger can run), and the mirror
 * into the NetBox 3.6 trigger fields of the webhook a rule shares its name with.
 */
import type { ModelHooks } from '../data/registry.js';
import { conditionError } from '../webhooks/conditions.js';
import { checkContentTypes, contentTypeIdsFilter, contentTypesFilter, parseJson } from './object-types.js';
import { webhooksFromRules } from './legacy-triggers.js';

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';
const EVENTS = ['type_create', 'type_update', 'type_delete', 'type_job_start', 'type_job_end'];

export const eventRule: ModelHooks = {
  filters: { event_rule_content_types: contentTypesFilter(), event_rule_content_type_id: contentTypeIdsFilter() },
  prepare(item) {
    const v = { ...(item.existing ?? {}), ...item.values };
    checkContentTypes(item, 'content_types', (entry) => entry.definition.changelog, 'an object type whose changes trigger events');
    if (!EVENTS.some((e) => truthy(v[e]))) {
      item.errors.add('__all__', 'At least one event type must be selected: object creation, modification, deletion, job start, and/or job end.');
    }
    const problem = conditionError(parseJson(v.conditions));
    if (problem) item.errors.add('conditions', problem);
    if (v.action_type === 'script') item.errors.add('action_type', 'NetLedger runs no scripts: the action of an event rule must be a webhook.');
  },
  afterWrite: (rows, { db, request }) => webhooksFromRules({ db, request }, rows),
};
