/**
 * Devices: the rendered configuration context (the matching config contexts merged, then the
 * device's own local_context_data; see config_context.ts) and the has_primary_ip filter.
 */
import type { ModelHooks, WriteItem } from '../data/registry.js';
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

export const device: ModelHooks = {
  computed: {
    config_context: configContextOf('Device'),
  },
  filters: {
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
};
