/**
 * An interface's link peers: the far ends of its cable, or, without a cable, the far end of its
 * wireless link (NetBox shows that interface, of type dcim.interface).
 */
import type { ModelHooks, Row } from '../data/registry.js';
import { model } from '../data/registry.js';
import { cabled } from './cabled.js';
import { whereAny } from '../data/any.js';

/** The far end of each interface's wireless link, for interfaces without a cable (one query for the page). */
async function farEnds(rows: Row[], db: Parameters<NonNullable<ModelHooks['beforeDelete']>>[1]['db']): Promise<Map<number, number>> {
  const linked = rows.filter((r) => r.cable_id == null && r.wireless_link_id != null);
  const far = new Map<number, number>();
  if (!linked.length) return far;
  const links = await whereAny(db, db(model('WirelessLink').definition.table).select('id', 'interface_a_id', 'interface_b_id'), 'id', linked.map((r) => r.wireless_link_id));
  const byId = new Map<number, Row>(links.map((l: Row) => [Number(l.id), l]));
  for (const r of linked) {
    const link = byId.get(Number(r.wireless_link_id));
    if (link) far.set(Number(r.id), Number(link.interface_a_id) === Number(r.id) ? Number(link.interface_b_id) : Number(link.interface_a_id));
  }
  return far;
}

export const wirelessPeers: ModelHooks = {
  computed: {
    async wireless_link_peers(rows, ctx) {
      const peers = await cabled.computed!.link_peers(rows, ctx);
      const far = await farEnds(rows, ctx.db);
      for (const [id, end] of far) peers.set(id, [ctx.refer('Interface', end)]);
      return peers;
    },
    async wireless_link_peers_type(rows, ctx) {
      const types = await cabled.computed!.link_peers_type(rows, ctx);
      for (const id of (await farEnds(rows, ctx.db)).keys()) types.set(id, 'dcim.interface');
      return types;
    },
  },
};
