/**
 * ASN ranges: start below end, `asn_count` (ASNs of any RIR inside the range, one query per page)
 * and available-asns, which hands out the lowest unused numbers of the range under an advisory lock.
 */
import type { Knex } from 'knex';
import type { ActionContext, ActionResult, ModelHooks, Row } from '../data/registry.js';
import { ApiError } from '../core/errors.js';
import { limitOf, lock, LOCKS, nestedOf, requests } from './available.js';

/** Up to `limit` numbers of the range that no ASN uses, ascending. */
async function freeAsns(db: Knex, range: Row, limit: number): Promise<number[]> {
  const start = Number(range.start);
  const end = Number(range.end);
  const used = (await db('ipam_asn').select('asn').where('asn', '>=', start).where('asn', '<=', end).orderBy('asn')).map((r: Row) => Number(r.asn));
  const free: number[] = [];
  let next = start;
  for (const u of [...used, end + 1]) {
    while (next < u && next <= end && free.length < limit) free.push(next++);
    if (free.length >= limit || next > end) break;
    if (u >= next) next = u + 1;
  }
  return free;
}

async function availableAsns(ctx: ActionContext): Promise<ActionResult> {
  const range = ctx.row;
  if (ctx.method === 'GET') {
    const rir = await nestedOf(ctx, 'RIR', range.rir_id);
    return { status: 200, body: (await freeAsns(ctx.db, range, limitOf(ctx.query))).map((asn) => ({ rir, asn })) };
  }
  const { items, many } = requests(ctx.body);
  return ctx.create('ASN', async (trx) => {
    await lock(trx, LOCKS.asns);
    const free = await freeAsns(trx, range, items.length);
    if (free.length < items.length) {
      throw new ApiError(409, { detail: `An insufficient number of ASNs are available within ${range.name} (${items.length} requested, ${free.length} available)` });
    }
    // The number and the RIR come from the range; anything else the client sent is kept.
    items.forEach((item, i) => { item.asn = free[i]; item.rir = range.rir_id; });
    return { items, many };
  });
}

export const asnRange: ModelHooks = {
  computed: {
    async asn_range_count(rows, { db }) {
      const ids = rows.map((r) => Number(r.id));
      const counts = new Map<number, unknown>(ids.map((id) => [id, 0]));
      const q = db('ipam_asnrange as r').join('ipam_asn as a', (j) => j.on('a.asn', '>=', 'r.start').andOn('a.asn', '<=', 'r.end'))
        .whereIn('r.id', ids).groupBy('r.id').select('r.id as id').count('a.id as n');
      for (const r of await q) counts.set(Number(r.id), Number(r.n));
      return counts;
    },
  },
  actions: { available_asns: availableAsns },
  prepare(item) {
    if (!('start' in item.values) && !('end' in item.values)) return;
    const row = { ...(item.existing ?? {}), ...item.values };
    // NetBox's clean() names no field: the REST API answers under __all__
    if (Number(row.end) <= Number(row.start)) item.errors.add('__all__', `The starting ASN (${row.start}) must be lower than the ending ASN (${row.end}).`);
  },
};
