/**
 * Filters on IP networks and addresses (exact, within, within_include, contains, parent, mask
 * length), compared on the stored first, last and host columns.
 */
import { errors } from '../core/errors.js';
import { parseNetwork } from '../core/ipnet.js';
import type { FilterDefinition, ModelEntry } from '../core/types.js';
import { orEach } from './or-each.js';
import { noteParent } from './parent-order.js';
import { compare, parseScalar, type Where } from './filter-compare.js';

export function applyIp(qb: Where, entry: ModelEntry, filter: Extract<FilterDefinition, { kind: 'ip' }>, lookup: string, values: string[], param: string): void {
  const f = filter.field;
  const isAddress = entry.definition.fields[f].type === 'ip_address';
  if (filter.op === 'mask_length') {
    const ints = values.map((v) => parseScalar(param, v, 'id'));
    compare(qb, `${f}_length`, lookup, ints, param, false);
    return;
  }
  const nets = values.map((raw) => {
    const n = parseNetwork(raw);
    if (!n) throw errors.badFilter(param, `'${raw}' is not a valid ${isAddress && filter.op === 'exact' ? 'IP address' : 'prefix'}.`);
    return { raw, n };
  });
  qb.where((w) => {
    orEach(w, nets, (x, { raw, n }) => {
      x.where('family', n.family);
      switch (filter.op) {
        case 'exact':
          // A bare address matches any mask; with a mask the whole value must match.
          if (isAddress && !raw.includes('/')) x.where(`${f}_host`, n.host);
          else x.where(f, n.text);
          break;
        case 'within': x.where(`${f}_first`, '>=', n.first).where(`${f}_last`, '<=', n.last).where(`${f}_length`, '>', n.length); break;
        case 'within_include': x.where(`${f}_first`, '>=', n.first).where(`${f}_last`, '<=', n.last).where(`${f}_length`, '>=', n.length); break;
        case 'contains': x.where(`${f}_first`, '<=', n.first).where(`${f}_last`, '>=', n.last).where(`${f}_length`, '<=', n.length); break;
        case 'parent': x.where(`${f}_host`, '>=', n.first).where(`${f}_host`, '<=', n.last); break;
      }
    });
  });
  // One parent network: a page in the address's order can read it as ordered index ranges (parent-order.ts).
  if (filter.op === 'parent' && nets.length === 1) noteParent(qb, f, nets[0].n);
}
