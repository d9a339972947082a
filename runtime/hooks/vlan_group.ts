/**
 * VLAN groups: their VID ranges (vid-ranges.ts), written as 4.6's `vid_ranges` or as 3.7's
 * `min_vid`/`max_vid` (one range), with the columns derived from them; utilization (VLANs in the
 * group over the VIDs its ranges hold, as NetBox 4 counts it); the `contains_vid` filter; and
 * available-vlans, which hands out the lowest unused VIDs of the ranges.
 */
import type { Knex } from 'knex';
import type { ActionContext, ActionResult, ModelHooks, Row } from '../data/registry.js';
import { ApiError, errors } from '../core/errors.js';
import { isPostgres } from '../data/db.js';
import { limitOf, lock, LOCKS, nestedOf, requests } from './available.js';
import { parseRanges, rangeColumns, rangesOf, type VidRange } from '../core/vid-ranges.js';

/** Up to `limit` VIDs of the group's ranges that none of its VLANs uses, ascending. */
async function freeVids(db: Knex, group: Row, limit: number): Promise<number[]> {
  const used = new Set((await db('ipam_vlan').select('vid').where('group_id', group.id)).map((r: Row) => Number(r.vid)));
  const free: number[] = [];
  for (const [lo, hi] of rangesOf(group)) {
    for (let vid = lo; vid <= hi && free.length < limit; vid++) if (!used.has(vid)) free.push(vid);
  }
  return free;
}

/** `?contains_vid=<vid>`: groups one of whose ranges holds the VID. */
function containsVid(qb: Knex.QueryBuilder, values: string[], { db, table }: { db: Knex; table: string }): void {
  const vid = values[0]?.trim() ?? '';
  if (!/^-?\d+$/.test(vid)) throw errors.badFilter('contains_vid', 'Enter a number.');
  const n = Number(vid);
  const inRange = isPostgres(db)
    ? 'exists (select 1 from jsonb_array_elements(g.vid_ranges::jsonb) r where (r->>0)::int <= ? and (r->>1)::int >= ?)'
    : "exists (select 1 from json_each(g.vid_ranges) r where json_extract(r.value, '$[0]') <= ? and json_extract(r.value, '$[1]') >= ?)";
  qb.whereIn('id', db(`${table} as g`).select('g.id').where('g.min_vid', '<=', n).where('g.max_vid', '>=', n).whereRaw(inRange, [n, n]));
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
        const size = Number(r.total_vlan_ids) || rangeColumns(rangesOf(r)).total_vlan_ids;
        return [Number(r.id), ((counts.get(Number(r.id)) ?? 0) / size * 100).toFixed(2)];
      }));
    },
  },
  filters: { vlan_group_contains_vid: containsVid },
  actions: { available_vlans: availableVlans },
  prepare(item) {
    let ranges: VidRange[];
    if (item.given?.has('vid_ranges')) {
      // 4.6: the ranges as given
      const parsed = parseRanges(item.input.vid_ranges);
      if (typeof parsed === 'string') { item.errors.add('vid_ranges', parsed); return; }
      ranges = parsed;
    } else if (item.given?.has('min_vid') || item.given?.has('max_vid')) {
      // 3.7: one range from the lowest to the highest VID
      const min = Number(item.values.min_vid ?? item.existing?.min_vid ?? 1);
      const max = Number(item.values.max_vid ?? item.existing?.max_vid ?? 4094);
      if (max < min) { item.errors.add('max_vid', 'Maximum VID must be greater than or equal to minimum VID.'); return; }
      ranges = [[min, max]];
    } else if (!item.existing) ranges = rangesOf({ vid_ranges: item.values.vid_ranges });
    else return;
    const columns = rangeColumns(ranges);
    Object.assign(item.values, columns, { vid_ranges: JSON.stringify(columns.vid_ranges) });
  },
};
