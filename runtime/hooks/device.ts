/**
 * Devices: the rendered configuration context (the matching config contexts merged, then the
 * device's own local_context_data; see config_context.ts), the has_primary_ip filter, and the
 * parent device (the device whose bay holds this one), which its children follow around.
 */
import type { ModelHooks, WriteItem } from '../data/registry.js';
import { model } from '../data/registry.js';
import { updateRows } from '../data/side-writes.js';
import { readByIds } from '../data/reads.js';
import { parseBoolean } from '../core/query-values.js';
import { configContextOf } from './config_context.js';

/** Local context data is a JSON object (or null), for devices and virtual machines alike. */
export function checkLocalContext(item: WriteItem): void {
  const data = item.values.local_context_data;
  if (typeof data === 'string' && data !== 'null') {
    const parsed = JSON.parse(data);
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) item.errors.add('local_context_data', 'JSON data must be in object form. Example: {"foo": 123}');
  }
  if (data === 'null') item.values.local_context_data = null;
}

const bays = () => model('DeviceBay').definition.table;

export const device: ModelHooks = {
  computed: {
    config_context: configContextOf('Device'),
    async parent_device(rows, { db, refer }) {
      // readByIds: compiled once per id count, and on PostgreSQL in the same round trip as the tags and counts.
      const found = await readByIds(db, 'parent_device', rows.map((r) => Number(r.id)), (ids) => db(bays()).select('id', 'device_id', 'installed_device_id').whereIn('installed_device_id', ids));
      return new Map(found.map((b) => [Number(b.installed_device_id), refer('Device', b.device_id, { device_bay: refer('DeviceBay', b.id) })]));
    },
  },
  filters: {
    parent_device_id(qb, values, { db }) {
      const ids = values.filter((v) => /^\d+$/.test(v)).map(Number);
      qb.whereIn('id', db(bays()).select('installed_device_id').whereIn('device_id', ids).whereNotNull('installed_device_id'));
    },
    /** `?local_context_data=true`: devices with local config context data (false: without). */
    local_context_data(qb, values) {
      const has = parseBoolean('local_context_data', values[0]);
      qb.where((w) => (has ? w.whereNotNull('local_context_data').whereNot('local_context_data', 'null') : w.whereNull('local_context_data').orWhere('local_context_data', 'null')));
    },
    has_primary_ip(qb, values) {
      const has = parseBoolean('has_primary_ip', values[0]);
      if (has) qb.where((w) => w.whereNotNull('primary_ip4_id').orWhereNotNull('primary_ip6_id'));
      else qb.whereNull('primary_ip4_id').whereNull('primary_ip6_id');
    },
  },
  prepare(item) {
    checkLocalContext(item);
    const face = item.values.face ?? item.existing?.face;
    const position = item.values.position !== undefined ? item.values.position : item.existing?.position;
    if (position !== null && position !== undefined && !face) item.errors.add('face', 'Must specify rack face when defining rack position.');
  },
  /**
   * Devices installed in a bay of a written device share its site, location and rack: one query
   * finds those that differ, and they are updated as NetBox saves them (change-logged).
   */
  async afterWrite(rows, { db, request }) {
    const devices = model('Device').definition.table;
    const columns = ['site_id', 'location_id', 'rack_id'];
    const children = await db(`${bays()} as b`).join(`${devices} as p`, 'p.id', 'b.device_id').join(`${devices} as c`, 'c.id', 'b.installed_device_id')
      .whereIn('b.device_id', rows.map((r) => Number(r.id)))
      .select('c.id', ...columns.flatMap((c) => [`p.${c} as parent_${c}`, `c.${c} as own_${c}`]));
    const moved = children.filter((c) => columns.some((k) => String(c[`parent_${k}`]) !== String(c[`own_${k}`])));
    await updateRows({ db, request }, model('Device'), moved.map((c) => ({ id: Number(c.id), values: Object.fromEntries(columns.map((k) => [k, c[`parent_${k}`]])) })));
  },
};
