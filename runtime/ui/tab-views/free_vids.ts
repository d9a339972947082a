/**
 * A VLAN group's VLANs in VID order with the free VIDs of the group's ranges between them as rows
 * ("VIDs 11-19 available") that open the VLAN form with the group and the first free VID filled in.
 */
import { may } from '../page.js';
import { addUrl, type TabRow, type TabView } from '../tab-view.js';
import { rangesOf, VID_MAX } from '../../core/vid-ranges.js';

export const freeVids: TabView = {
  readsNeighbours: true,
  fields: ['vid'],
  async render({ ctx, services, object, other, rows, built, here, complete }) {
    const canAdd = may(ctx, other, 'add', services) && !other.definition.readOnly;
    const ordered = built.map((row, i) => ({ row, vid: Number(rows[i].vid) })).sort((a, b) => a.vid - b.vid);
    if (!canAdd) return { rows: ordered.map((o) => o.row) };
    const ranges = rangesOf(object);
    const gap = (a: number, b: number): TabRow => ({
      free: { text: a === b ? `VID ${a} available` : `VIDs ${a}-${b} available`, url: addUrl(other, { group: object.id, vid: a }, here) },
    });
    const out: TabRow[] = [];
    // the free VIDs from `a` to `b`: one row per range they cross
    const gaps = (a: number, b: number) => {
      for (const [lo, hi] of ranges) if (Math.max(a, lo) <= Math.min(b, hi)) out.push(gap(Math.max(a, lo), Math.min(b, hi)));
    };
    let next = ranges[0][0];
    for (const { row, vid } of ordered) {
      if (vid > next) gaps(next, vid - 1);
      if (vid >= next) next = vid + 1;
      out.push(row);
    }
    if (complete) gaps(next, VID_MAX);
    return { rows: out };
  },
};
