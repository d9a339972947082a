/**
 * NetBox 3.6 kept a webhook's triggers (content_types, type_create/update/delete, enabled,
 * conditions) on the webhook; 3.7 moved them to event rules, whose action is the webhook. Older
 * clients (the Ansible collection in Debian) still write the 3.6 fields, so each such webhook has a
 * companion event rule: the rule pointing at it whose name is the webhook's (or, after a rename, the
 * only rule pointing at it). Writing either side updates the other; the queue reads rules only.
 * Mirrored rows are written through data/side-writes.ts, so each has its change-log entry and events,
 * in the request that caused it.
 */
import type { Knex } from 'knex';
import { model, type Row } from '../data/registry.js';
import { createRows, updateRows, type Target } from '../data/side-writes.js';
import { contentTypesOf } from './object-types.js';

const WEBHOOK = 'extras.webhook';
const TRIGGERS = ['content_types', 'type_create', 'type_update', 'type_delete', 'enabled', 'conditions'] as const;

const rulesTable = () => model('EventRule').definition.table;
const webhooksTable = () => model('Webhook').definition.table;

function companionOf(webhook: Row, rules: Row[]): Row | undefined {
  const mine = rules.filter((r) => Number(r.action_object_id) === Number(webhook.id));
  return mine.find((r) => r.name === webhook.name) ?? (mine.length === 1 ? mine[0] : undefined);
}

/** Webhooks with 3.6 triggers → their companion rules (created when missing). */
export async function rulesFromWebhooks(target: Target, webhooks: Row[]): Promise<void> {
  const withTriggers = webhooks.filter((w) => contentTypesOf(w.content_types).length);
  if (!withTriggers.length) return;
  const rules: Row[] = await target.db(rulesTable()).where('action_object_type', WEBHOOK).whereIn('action_object_id', withTriggers.map((w) => w.id));
  const now = new Date().toISOString();
  const inserts: Row[] = [];
  const updates: { id: number; values: Row }[] = [];
  for (const webhook of withTriggers) {
    const values: Row = { name: webhook.name, last_updated: now };
    for (const field of TRIGGERS) values[field] = webhook[field];
    const companion = companionOf(webhook, rules);
    if (companion) updates.push({ id: Number(companion.id), values });
    else {
      inserts.push({
        ...values, type_job_start: false, type_job_end: false, action_type: 'webhook', action_object_type: WEBHOOK,
        action_object_id: webhook.id, description: '', created: now, custom_field_data: '{}',
      });
    }
  }
  await updateRows(target, model('EventRule'), updates);
  await createRows(target, model('EventRule'), inserts);
}

/** Rules named like the webhook they act on → that webhook's 3.6 trigger fields. */
export async function webhooksFromRules(target: Target, rules: Row[]): Promise<void> {
  const candidates = rules.filter((r) => r.action_object_type === WEBHOOK && r.action_object_id != null);
  if (!candidates.length) return;
  const webhooks: Row[] = await target.db(webhooksTable()).whereIn('id', candidates.map((r) => r.action_object_id));
  const updates: { id: number; values: Row }[] = [];
  for (const rule of candidates) {
    const webhook = webhooks.find((w) => Number(w.id) === Number(rule.action_object_id));
    if (!webhook || webhook.name !== rule.name) continue;
    const values: Row = {};
    for (const field of TRIGGERS) values[field] = rule[field];
    updates.push({ id: Number(webhook.id), values });
  }
  await updateRows(target, model('Webhook'), updates);
}

/** At start-up: webhooks written before event rules existed get their companion rule. */
export async function backfillCompanionRules(db: Knex): Promise<void> {
  const linked = db(rulesTable()).where('action_object_type', WEBHOOK).select('action_object_id');
  const orphans: Row[] = await db(webhooksTable()).whereNotIn('id', linked);
  await rulesFromWebhooks({ db }, orphans);
}

/** Another rule (not acting on this webhook) already carries the name a companion would take. */
export async function companionNameTaken(db: Knex, name: string, webhookId: number | null): Promise<boolean> {
  const q = db(rulesTable()).where('name', name);
  if (webhookId !== null) q.whereNot((w) => w.where('action_object_type', WEBHOOK).andWhere('action_object_id', webhookId));
  return !!(await q.first());
}
