/**
 * A VLAN group's VLANs in VID order with the free VIDs of the group's range between them as rows
 * ("VIDs 11-19 available") that open the VLAN form with the group and the first free VID filled in.
 */
import { may } from '../page.js';
import { addUrl, type TabRow, type TabView } from '../tab-view.js';

export const freeVids: TabView = {
  fields: ['vid'],
  async render({ ctx, services, object, other, rows, built, here, complete }) {
    const canAdd = may(ctx, other, 'add', services) && !other.definition.readOnly;
    const ordered = built.map((row, i) => ({ row, vid: Number(rows[i].vid) })).sort((a, b) => a.vid - b.vid);
    if (!canAdd) return { rows: ordered.map((o) => o.row) };
    const min = Number(object.min_vid ?? 1);
    const max = Number(object.max_vid ?? 4094);
    const gap = (a: number, b: number): TabRow => ({
      free: { text: a === b ? `VID ${a} available` : `VIDs ${a}-${b} available`, url: addUrl(other, { group: object.id, vid: a }, here) },
    });
    const out: TabRow[] = [];
    let next = min;
    for (const { row, vid } of ordered) {
      if (vid > next && next <= max) out.push(gap(next, Math.min(vid - 1, max)));
      if (vid >= next) next = vid + 1;
      out.push(row);
    }
    if (complete && next <= max) out.push(gap(next, max));
    return { rows: out };
  },
};
