/**
 * Event rules whose action is a notification (NetBox 4.1): each change that fires one gives every
 * member of the rule's notification group (its users, and the users of its groups, each once) a
 * notification about the changed object, written in the change's own transaction. A user holds one
 * notification per object: a later event updates its `event_type` and leaves `created` and `read`
 * as they are, as NetBox's update-or-create does.
 */
import type { Knex } from 'knex';
import { model, type Row } from '../data/registry.js';

/** The event of a change, as event rules and webhook bodies name it. */
export type EventName = 'created' | 'updated' | 'deleted';

/** One change that fired a notification rule. */
export interface GroupEvent {
  groupId: number;
  objectType: string;
  objectId: number;
  event: EventName;
}

const EVENT_TYPES: Record<EventName, string> = { created: 'object_created', updated: 'object_updated', deleted: 'object_deleted' };

/** The users each notification group reaches: its own users and its groups' users. */
async function membersOf(db: Knex, groupIds: number[]): Promise<Map<number, Set<number>>> {
  const fields = model('NotificationGroup').definition.fields;
  const userGroups = model('User').definition.fields.groups.through!;
  const direct: Row[] = await db(fields.users.through!).whereIn('from_id', groupIds).select('from_id as group_id', 'to_id as user_id');
  const viaGroups: Row[] = await db(`${fields.groups.through!} as g`).join(`${userGroups} as u`, 'u.to_id', 'g.to_id')
    .whereIn('g.from_id', groupIds).select('g.from_id as group_id', 'u.from_id as user_id');
  const members = new Map<number, Set<number>>(groupIds.map((id) => [id, new Set()]));
  for (const r of [...direct, ...viaGroups]) members.get(Number(r.group_id))!.add(Number(r.user_id));
  return members;
}

export async function notifyGroups(db: Knex, events: GroupEvent[], now: string): Promise<void> {
  const members = await membersOf(db, [...new Set(events.map((e) => e.groupId))]);
  // per (object, user): the last event of the batch
  const wanted = new Map<string, Row>();
  for (const e of events) {
    for (const user of members.get(e.groupId) ?? []) {
      wanted.set(`${e.objectType}|${e.objectId}|${user}`, { object_type: e.objectType, object_id: e.objectId, user_id: user, event_type: EVENT_TYPES[e.event] });
    }
  }
  if (!wanted.size) return;
  const table = model('Notification').definition.table;
  const rows = [...wanted.values()];
  const existing: Row[] = await db(table).whereIn('user_id', [...new Set(rows.map((r) => r.user_id))])
    .whereIn('object_id', [...new Set(rows.map((r) => r.object_id))]).select('id', 'object_type', 'object_id', 'user_id');
  const ids = new Map(existing.map((r) => [`${r.object_type}|${Number(r.object_id)}|${Number(r.user_id)}`, Number(r.id)]));
  const inserts: Row[] = [];
  // the notifications that exist, by the event they now carry: one update per event type
  const updates = new Map<string, number[]>();
  for (const [key, row] of wanted) {
    const id = ids.get(key);
    if (id === undefined) inserts.push({ ...row, created: now, read: null });
    else updates.set(row.event_type, [...(updates.get(row.event_type) ?? []), id]);
  }
  for (const [eventType, rowIds] of updates) {
    for (let i = 0; i < rowIds.length; i += 500) await db(table).whereIn('id', rowIds.slice(i, i + 500)).update({ event_type: eventType });
  }
  for (let i = 0; i < inserts.length; i += 500) await db(table).insert(inserts.slice(i, i + 500));
}
