/**
 * VLAN groups: utilization (VLANs in the group over the size of its VID range), the rule that
 * max_vid is not below min_vid, and available-vlans, which hands out the lowest unused VIDs.
 */
import type { Knex } from 'knex';
import type { ActionContext, ActionResult, ModelHooks, Row } from '../data/registry.js';
import { ApiError, errors } from '../core/errors.js';
import { limitOf, lock, LOCKS, nestedOf, requests } from './available.js';

/** Up to `limit` VIDs of the group's range that none of its VLANs uses, ascending. */
async function freeVids(db: Knex, group: Row, limit: number): Promise<number[]> {
  const used = new Set((await db('ipam_vlan').select('vid').where('group_id', group.id)).map((r: Row) => Number(r.vid)));
  const free: number[] = [];
  for (let vid = Number(group.min_vid); vid <= Number(group.max_vid) && free.length < limit; vid++) if (!used.has(vid)) free.push(vid);
  return free;
}

async function availableVlans(ctx: ActionContext): Promise<ActionResult> {
  const group = ctx.row;
  if (ctx.method === 'GET') {
    const nested = await nestedOf(ctx, 'VLANGroup', group.id);
    return { status: 200, body: (await freeVids(ctx.db, group, limitOf(ctx.query))).map((vid) => ({ vid, group: nested })) };
  }
  const { items, many } = requests(ctx.body);
  const problems = items.map((item) => (typeof item.name === 'string' && item.name.trim() ? {} : { name: ['This field is required.'] }));
  if (problems.some((p) => Object.keys(p).length)) throw errors.validation(many ? problems : problems[0]);
  return ctx.create('VLAN', async (trx) => {
    await lock(trx, LOCKS.vlans);
    const free = await freeVids(trx, group, items.length);
    if (free.length < items.length) {
      throw new ApiError(409, { detail: `An insufficient number of VLANs are available within ${group.name} (${items.length} requested, ${free.length} available)` });
    }
    // The VID and the group come from the parent; anything else the client sent is kept.
    items.forEach((item, i) => { item.vid = free[i]; item.group = group.id; });
    return { items, many };
  });
}

export const vlanGroup: ModelHooks = {
  computed: {
    async vlan_group_utilization(rows, { db }) {
      const ids = rows.map((r) => Number(r.id));
      const counts = new Map<number, number>();
      for (const r of await db('ipam_vlan').whereIn('group_id', ids).groupBy('group_id').select('group_id').count('id as n')) counts.set(Number(r.group_id), Number(r.n));
      return new Map(rows.map((r) => {
        const size = Number(r.max_vid) - Number(r.min_vid) + 1;
        return [Number(r.id), ((counts.get(Number(r.id)) ?? 0) / size * 100).toFixed(2)];
      }));
    },
  },
  actions: { available_vlans: availableVlans },
  prepare(item) {
    const min = item.values.min_vid ?? item.existing?.min_vid ?? 1;
    const max = item.values.max_vid ?? item.existing?.max_vid ?? 4094;
    if (Number(max) < Number(min)) item.errors.add('max_vid', 'Maximum VID must be greater than or equal to minimum VID.');
  },
};
