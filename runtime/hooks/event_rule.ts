/**
 * Event rules: the checks NetBox makes when a rule is saved (object types whose changes are
 * captured, at least one event, conditions that parse, an action NetLedger can run on an object of
 * its kind: a webhook or a notification group), and the mirror
 * into the NetBox 3.6 trigger fields of the webhook a rule shares its name with.
 */
import type { ModelHooks } from '../data/registry.js';
import { conditionError } from '../webhooks/conditions.js';
import { checkContentTypes, contentTypeIdsFilter, contentTypesFilter, parseJson } from './object-types.js';
import { webhooksFromRules } from './legacy-triggers.js';
import { booleansOf, eventTypeFilter, eventTypesOf } from './event-types.js';

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';
/** The type of the object each kind of action acts on. */
const ACTION_OBJECT_TYPES: Record<string, string> = { webhook: 'extras.webhook', notification: 'extras.notificationgroup' };
const EVENTS = ['type_create', 'type_update', 'type_delete', 'type_job_start', 'type_job_end'];

export const eventRule: ModelHooks = {
  filters: { event_rule_content_types: contentTypesFilter(), event_rule_content_type_id: contentTypeIdsFilter(), event_rule_event_type: eventTypeFilter },
  computed: {
    async event_rule_event_types(rows) {
      return new Map(rows.map((r) => [Number(r.id), eventTypesOf(r)]));
    },
  },
  prepare(item) {
    // 4.x's event_types writes the stored booleans (the 3.7 body has no such key)
    if ('event_types' in item.input) {
      const booleans = booleansOf(item.input.event_types);
      if (typeof booleans === 'string') item.errors.add('event_types', booleans);
      else Object.assign(item.values, booleans);
    }
    const v = { ...(item.existing ?? {}), ...item.values };
    checkContentTypes(item, 'content_types', (entry) => entry.definition.changelog, 'an object type whose changes trigger events');
    if (!EVENTS.some((e) => truthy(v[e]))) {
      item.errors.add('__all__', 'At least one event type must be selected: object creation, modification, deletion, job start, and/or job end.');
    }
    const problem = conditionError(parseJson(v.conditions));
    if (problem) item.errors.add('conditions', problem);
    if (v.action_type === 'script') item.errors.add('action_type', 'NetLedger runs no scripts: the action of an event rule must be a webhook or a notification.');
    // the action's object is of the action's kind: a webhook, or a notification group to notify
    const kind = ACTION_OBJECT_TYPES[String(v.action_type)];
    if (kind && v.action_object_type && v.action_object_type !== kind) {
      item.errors.add('action_object_type', `A ${String(v.action_type)} action needs an action object of type ${kind}, not ${String(v.action_object_type)}.`);
    }
  },
  afterWrite: (rows, { db, request }) => webhooksFromRules({ db, request }, rows),
};
