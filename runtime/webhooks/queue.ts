/**
 * Capture: a change listener that queues webhook deliveries inside the writing transaction, so a
 * rolled-back request leaves none and a committed one always has them, even if the process dies right
 * after the commit. Imported once at start-up (runtime/server.ts). A rule whose action is a
 * notification writes its notifications in the same transaction instead (notify.ts).
 *
 * Per request (that is, per transaction): one query loads the enabled event rules whose action is a
 * webhook or a notification group; each change is matched against their object types, event flags and conditions (evaluated
 * on the object's API representation); one delivery per (change, matching rule), inserted set-wise. When one request writes the same object in two
 * write calls, its queued row is updated to the last state instead of adding a second event:
 * created+updated stays `created`, anything+deleted becomes `deleted`, and the prechange snapshot is
 * the one from before the first write.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { inVersion, onChanges, type Change, type ChangeContext } from '../data/changes.js';
import { apiVersions } from '../../generated/versions.js';
import { model, type Row } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { matches } from './conditions.js';
import { snapshotIn } from '../core/snapshot-shape.js';
import { isPostgres } from '../data/db.js';
import { channelOf, queued } from './channel.js';
import { notifyGroups, type EventName, type GroupEvent } from './notify.js';

export type { EventName };

const EVENT: Record<Change['action'], EventName> = { create: 'created', update: 'updated', delete: 'deleted' };

/** An enabled event rule whose action is a webhook, or notifications for a notification group's users. */
interface Rule {
  id: number;
  action: 'webhook' | 'notification';
  /** the webhook's or the notification group's id */
  targetId: number;
  contentTypes: Set<string>;
  on: Record<EventName, boolean>;
  conditions: unknown;
  /** the API version whose shape its webhook's body takes (the default: a change's own `data`); a notification's conditions read the newest version's */
  version: string;
}

/** What a request has queued so far for one (event rule, object). */
interface Seen {
  event: EventName;
  prechange: Record<string, unknown> | null;
  /** the queued row, when the webhook fired */
  rowId: number | null;
}

interface RequestState {
  rules: Promise<Rule[]>;
  seen: Map<string, Seen>;
  notified: boolean;
}

const requests = new WeakMap<Knex, RequestState>();
/** the newest API version: the shape a notification rule's conditions are evaluated on */
const NEWEST = apiVersions.versions[apiVersions.versions.length - 1].version;
const CHUNK = 500;

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';

function parse(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? null;
  try { return JSON.parse(text); } catch { return null; }
}

async function enabledRules(db: Knex): Promise<Rule[]> {
  const rows: Row[] = await db(`${model('EventRule').definition.table} as r`)
    .leftJoin(`${model('Webhook').definition.table} as w`, (j) => j.on('w.id', 'r.action_object_id').andOnVal('r.action_object_type', 'extras.webhook'))
    .where('r.enabled', true)
    .where((w) => w.where({ 'r.action_type': 'webhook', 'r.action_object_type': 'extras.webhook' }).whereNotNull('w.id')
      .orWhere({ 'r.action_type': 'notification', 'r.action_object_type': 'extras.notificationgroup' }))
    .select('r.*', 'w.api_version as webhook_api_version');
  return rows.map((r) => {
    const types = parse(r.content_types);
    const action = r.action_type === 'notification' ? 'notification' : 'webhook';
    return {
      id: Number(r.id),
      action,
      targetId: Number(r.action_object_id),
      contentTypes: new Set(Array.isArray(types) ? types.map(String) : []),
      on: { created: truthy(r.type_create), updated: truthy(r.type_update), deleted: truthy(r.type_delete) },
      conditions: parse(r.conditions),
      version: action === 'notification' ? NEWEST : String(r.webhook_api_version || apiVersions.default),
    };
  });
}

/** Kept per transaction (one per request); a write outside a transaction gets a state of its own. */
function stateOf(db: Knex): RequestState {
  let state = requests.get(db);
  if (!state) {
    state = { rules: enabledRules(db), seen: new Map(), notified: false };
    if ((db as Knex & { isTransaction?: boolean }).isTransaction) requests.set(db, state);
  }
  return state;
}

function merged(first: EventName, next: EventName): EventName {
  if (next === 'deleted') return 'deleted';
  return first === 'created' ? 'created' : next;
}

/** The other versions' representations the matching rules' bodies take, rendered per version for the batch. */
async function shapesFor(changes: Change[], rules: Rule[], ctx: ChangeContext): Promise<void> {
  for (const version of new Set(rules.map((r) => r.version))) {
    if (version === apiVersions.default) continue;
    const types = new Set(rules.filter((r) => r.version === version).flatMap((r) => [...r.contentTypes]));
    await inVersion(ctx, changes.filter((c) => types.has(c.entry.definition.contentType)), version);
  }
}

export async function queueChanges(changes: Change[], ctx: ChangeContext): Promise<void> {
  const state = stateOf(ctx.db);
  const rules = await state.rules;
  if (!rules.length) return;
  const table = model('WebhookDelivery').definition.table;
  const inserts: { row: Row; key: string }[] = [];
  const updates: { id: number; row: Row }[] = [];
  const removals: number[] = [];
  const notifications: GroupEvent[] = [];
  await shapesFor(changes, rules, ctx);
  for (const change of changes) {
    const contentType = change.entry.definition.contentType;
    const interested = rules.filter((r) => r.contentTypes.has(contentType));
    if (!interested.length) continue;
    for (const rule of interested) {
      const key = `${rule.id}|${contentType}|${change.id}`;
      const earlier = state.seen.get(key);
      const event = earlier ? merged(earlier.event, EVENT[change.action]) : EVENT[change.action];
      const prechange = earlier ? earlier.prechange : change.prechange;
      const data = rule.version === apiVersions.default ? change.data : change.shapes?.get(rule.version) ?? change.data;
      const fires = rule.on[event] && matches(rule.conditions, data);
      state.seen.set(key, { event, prechange, rowId: earlier?.rowId ?? null });
      if (rule.action === 'notification') {
        if (fires) notifications.push({ groupId: rule.targetId, objectType: contentType, objectId: change.id, event });
        continue;
      }
      if (!fires) {
        if (earlier?.rowId) removals.push(earlier.rowId);
        state.seen.get(key)!.rowId = null;
        continue;
      }
      const payload = JSON.stringify({
        event,
        timestamp: ctx.now,
        model: contentType.split('.')[1],
        username: ctx.user?.username ?? '',
        request_id: ctx.requestId,
        data,
        // the snapshots in the field names of the body's version, as the change log shows them there
        snapshots: { prechange: snapshotIn(change.entry, prechange, rule.version), postchange: snapshotIn(change.entry, change.postchange, rule.version) },
      });
      const fields = { event, payload, object_repr: change.repr.slice(0, 200), last_updated: ctx.now };
      if (earlier?.rowId) updates.push({ id: earlier.rowId, row: fields });
      else {
        inserts.push({
          key,
          row: {
            webhook_id: rule.targetId, message_id: `msg_${randomUUID()}`, object_type: contentType, object_id: change.id, request_id: ctx.requestId,
            state: 'queued', attempt_count: 0, attempts: '[]', next_attempt_at: ctx.now, lease_owner: null, lease_expires_at: null, created: ctx.now,
            ...fields,
          },
        });
      }
    }
  }
  if (notifications.length) await notifyGroups(ctx.db, notifications, ctx.now);
  if (removals.length) await ctx.db(table).whereIn('id', removals).where('state', 'queued').delete();
  for (const { id, row } of updates) await ctx.db(table).where('id', id).update(row);
  for (let i = 0; i < inserts.length; i += CHUNK) {
    const chunk = inserts.slice(i, i + CHUNK);
    const ids = await ctx.db(table).insert(chunk.map((c) => c.row)).returning('id');
    ids.forEach((r: { id: number } | number, j: number) => { state.seen.get(chunk[j].key)!.rowId = Number(typeof r === 'object' ? r.id : r); });
  }
  if (inserts.length || updates.length) {
    queued.generation++;
    // Delivered at commit only, so other processes wake exactly when the rows become visible.
    if (isPostgres(ctx.db) && !state.notified) {
      state.notified = true;
      await ctx.db.raw('select pg_notify(?, ?)', [channelOf(ctx.db), '']);
    }
  }
}

/** The rules as a delete is about to begin: read once per transaction, apart from the rules its events are matched against. */
const rulesBefore = new WeakMap<Knex, Promise<Rule[]>>();

/**
 * A deleted object's full representation is a payload only where an enabled rule watches its model.
 * Asked before the rows go, so not the rules the events are matched against (read after, when the
 * delete may have removed some): at worst this says yes for a rule gone since, and the delete
 * renders what it did before.
 */
async function wantsDeleted(entry: ModelEntry, ctx: ChangeContext): Promise<boolean> {
  return (await rulesBeforeDelete(ctx)).some((r) => r.contentTypes.has(entry.definition.contentType));
}

function rulesBeforeDelete(ctx: ChangeContext): Promise<Rule[]> {
  let rules = requests.get(ctx.db)?.rules ?? rulesBefore.get(ctx.db);
  if (!rules) {
    rules = enabledRules(ctx.db);
    if ((ctx.db as Knex & { isTransaction?: boolean }).isTransaction) rulesBefore.set(ctx.db, rules);
  }
  return rules;
}

/** The versions other than the default whose shape a body of a deleted object of this model takes. */
async function deletedVersions(entry: ModelEntry, ctx: ChangeContext): Promise<string[]> {
  const rules = (await rulesBeforeDelete(ctx)).filter((r) => r.contentTypes.has(entry.definition.contentType));
  return [...new Set(rules.map((r) => r.version))].filter((v) => v !== apiVersions.default);
}

onChanges(queueChanges, { wantsDeleted, deletedVersions });
