/**
 * IP ranges: start and end in one family with one mask, end after start, no overlap with another
 * range of the same VRF; `size` is stored on write. The display shortens the end address to the
 * groups that differ (192.0.2.10-20/24). Containment filters and free addresses read the indexed
 * host bytes, like prefixes.
 */
import type { Knex } from 'knex';
import type { ActionContext, ActionResult, ModelHooks, Row } from '../data/registry.js';
import { ApiError, errors } from '../core/errors.js';
import { fromBigInt, parseNetwork, toBigInt, toBytes } from '../core/ipnet.js';
import { freeBetween, limitOf, lock, LOCKS, requests, vrfOf } from './available.js';
import { vrfPresenceFilters } from './vrf_presence.js';

const MAX_SIZE = 2n ** 32n - 1n;

function shortName(row: Row): string {
  const start = String(row.start_address);
  const end = String(row.end_address);
  const [startIp, length] = start.split('/');
  const endIp = end.split('/')[0];
  const separator = startIp.includes(':') ? ':' : '.';
  const a = startIp.split(separator);
  const b = endIp.split(separator);
  // groups equal in both, compared pair by pair (as NetBox does), form the common part
  const common = a.filter((chunk, i) => chunk === b[i]);
  return `${common.join(separator)}${separator}${a.slice(common.length).join(separator)}-${b.slice(common.length).join(separator)}/${length}`;
}

function networksOf(param: string, values: string[]) {
  return values.map((raw) => {
    const n = parseNetwork(raw);
    if (!n) throw errors.badFilter(param, `'${raw}' is not a valid IP address or prefix.`);
    return n;
  });
}

async function rangeAvailableIps(ctx: ActionContext): Promise<ActionResult> {
  const range = ctx.row;
  const family = Number(range.family) as 4 | 6;
  const first = toBigInt(range.start_address_host);
  const last = toBigInt(range.end_address_host);
  const mask = Number(range.start_address_length);
  if (ctx.method === 'GET') {
    const vrf = await vrfOf(ctx);
    const free = await freeBetween(ctx.db, family, first, last, range.vrf_id, limitOf(ctx.query));
    return { status: 200, body: free.map((v) => ({ family, address: `${fromBigInt(v, family)}/${mask}`, vrf })) };
  }
  const { items, many } = requests(ctx.body);
  return ctx.create('IPAddress', async (trx) => {
    await lock(trx, LOCKS.ips);
    const free = await freeBetween(trx, family, first, last, range.vrf_id, items.length);
    if (free.length < items.length) {
      throw new ApiError(409, { detail: `An insufficient number of IP addresses are available within IP range ${shortName(range)} (${items.length} requested, ${free.length} available)` });
    }
    items.forEach((item, i) => { item.address = `${fromBigInt(free[i], family)}/${mask}`; item.vrf = range.vrf_id; });
    return { items, many };
  });
}

async function overlapping(db: Knex, row: Row, id: number | null): Promise<Row | undefined> {
  const q = db('ipam_iprange').where('family', row.family)
    .where('start_address_host', '<=', row.end_address_host).where('end_address_host', '>=', row.start_address_host);
  if (row.vrf_id === null || row.vrf_id === undefined) q.whereNull('vrf_id'); else q.where('vrf_id', row.vrf_id);
  if (id !== null) q.whereNot('id', id);
  return q.first();
}

export const ipRange: ModelHooks = {
  display: shortName,
  filters: {
    ...vrfPresenceFilters,
    range_parent(qb, values) {
      const nets = networksOf('parent', values);
      qb.where((w) => { for (const n of nets) w.orWhere((x) => x.where('family', n.family).where('start_address_host', '>=', n.first).where('end_address_host', '<=', n.last)); });
    },
    range_contains(qb, values) {
      const nets = networksOf('contains', values);
      qb.where((w) => { for (const n of nets) w.orWhere((x) => x.where('family', n.family).where('start_address_host', '<=', n.first).where('end_address_host', '>=', n.last)); });
    },
  },
  actions: { range_available_ips: rangeAvailableIps },
  async prepare(item, { db }) {
    const touched = ['start_address', 'end_address', 'vrf_id'].some((c) => c in item.values);
    if (!touched) return;
    const row = { ...(item.existing ?? {}), ...item.values };
    const start = parseNetwork(String(row.start_address));
    const end = parseNetwork(String(row.end_address));
    if (!start || !end) return;
    if (start.family !== end.family) { item.errors.add('end_address', 'Starting and ending IP address versions must match.'); return; }
    if (start.length !== end.length) { item.errors.add('end_address', 'Starting and ending IP address masks must match.'); return; }
    const size = toBigInt(end.host) - toBigInt(start.host) + 1n;
    if (size <= 1n) { item.errors.add('end_address', `The ending address must be higher than the starting address (${start.text}).`); return; }
    // NetBox's clean() raises these two without a field: the REST API answers them under __all__
    if (size > MAX_SIZE) { item.errors.add('__all__', `The range exceeds the largest supported size (${MAX_SIZE}).`); return; }
    item.values.family = start.family;
    item.values.size = Number(size);
    const other = await overlapping(db, { ...row, family: start.family, start_address_host: toBytes(toBigInt(start.host)), end_address_host: toBytes(toBigInt(end.host)) }, item.id);
    if (other) item.errors.add('__all__', `The addresses overlap with range ${shortName(other)} in ${row.vrf_id ? 'this VRF' : 'the global table'}.`);
  },
};
