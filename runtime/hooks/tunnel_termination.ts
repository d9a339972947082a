/**
 * Tunnel terminations: an interface or VM interface terminates at most one tunnel, checked against
 * the stored rows and the other elements of the same request alike.
 */
import { byContentType, model, type ModelHooks, type Row } from '../data/registry.js';

export const tunnelTermination: ModelHooks = {
  async prepareMany(items, { db }) {
    const table = model('TunnelTermination').definition.table;
    const final = items.map((item) => ({ item, row: { ...(item.existing ?? {}), ...item.values } as Row }));
    const mine = new Set(items.map((i) => i.id).filter((id) => id !== null));
    const stored = (await db(table).select('id', 'tunnel_id', 'termination_type', 'termination_id').where((w) => {
      for (const { row } of final) w.orWhere({ termination_type: row.termination_type, termination_id: row.termination_id });
    })).filter((r: Row) => !mine.has(Number(r.id)));
    const seen: Row[] = [...stored];
    const clashes: { item: (typeof items)[number]; row: Row; other: Row }[] = [];
    for (const { item, row } of final) {
      const other = seen.find((r) => r.termination_type === row.termination_type && Number(r.termination_id) === Number(row.termination_id));
      if (other) clashes.push({ item, row, other });
      seen.push(row);
    }
    if (!clashes.length) return;
    // name the object and the tunnel it is attached to, as NetBox does
    const tunnels = new Map((await db(model('Tunnel').definition.table).select('id', 'name').whereIn('id', clashes.map((c) => c.other.tunnel_id))).map((r: Row) => [Number(r.id), r.name]));
    for (const { item, row, other } of clashes) {
      const target = byContentType.get(String(row.termination_type));
      const object = target ? await db(target.definition.table).select('name').where('id', row.termination_id).first() : undefined;
      item.errors.add('termination', `${object?.name ?? row.termination_id} is already attached to a tunnel (${tunnels.get(Number(other.tunnel_id)) ?? other.tunnel_id}).`);
    }
  },
};
