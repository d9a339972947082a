/**
 * Cable terminations written one by one (NetBox serves them read-write): the same object rules as a
 * cable's ends (cable_rules.ts), the terminated object's cable and cable_end kept in step, and the
 * paths through the cable re-traced; a deleted termination frees its object.
 */
import { model, type ModelHooks, type Row } from '../data/registry.js';
import { byContentType } from '../data/registry.js';
import { checkObjects, checkPair } from './cable_rules.js';
import { nodeKey, retrace } from './cable_paths.js';

const cableType = () => model('Cable').definition.contentType;

export const cableTermination: ModelHooks = {
  async prepareMany(items, { db }) {
    const table = model('CableTermination').definition.table;
    const checks: Parameters<typeof checkObjects>[1] = [];
    for (const item of items) {
      const row = { ...(item.existing ?? {}), ...item.values } as Row;
      if (!row.termination_type || row.cable_id === undefined) continue;
      const end = { type: String(row.termination_type), ids: [Number(row.termination_id)] };
      const others: Row[] = await db(table).where('cable_id', row.cable_id).whereNot('id', item.id ?? 0);
      const mine = others.filter((ct) => ct.cable_end === row.cable_end);
      if (mine.some((ct) => ct.termination_type !== end.type)) item.errors.add('termination_type', 'Cannot connect different termination types to same end of cable.');
      const far = others.filter((ct) => ct.cable_end !== row.cable_end);
      const farEnd = { type: far[0]?.termination_type ?? '', ids: far.map((ct) => Number(ct.termination_id)) };
      const [a, b] = row.cable_end === 'A' ? [end, farEnd] : [farEnd, end];
      checkPair(item, a, b);
      checks.push({ item, field: 'termination_id', end, cable: Number(row.cable_id) });
    }
    await checkObjects(db, checks.filter((c) => c.item.errors.empty));
  },
  async afterWrite(rows, { db, items }) {
    const through: string[] = [];
    for (const item of items) {
      const before = item.existing;
      if (before) {
        await db(byContentType.get(before.termination_type)!.definition.table).where('id', before.termination_id).update({ cable_id: null, cable_end: null });
        through.push(nodeKey(before.termination_type, before.termination_id), nodeKey(cableType(), before.cable_id));
      }
    }
    for (const r of rows) {
      await db(byContentType.get(r.termination_type)!.definition.table).where('id', r.termination_id).update({ cable_id: r.cable_id, cable_end: r.cable_end });
      through.push(nodeKey(cableType(), r.cable_id));
    }
    const origins = rows.filter((r) => byContentType.get(r.termination_type)?.definition.cabling?.role === 'endpoint').map((r) => nodeKey(r.termination_type, r.termination_id));
    await retrace(db, [...through, ...rows.map((r) => nodeKey(r.termination_type, r.termination_id))], origins);
  },
  async beforeDelete(ids, { db, closure }) {
    const rows: Row[] = await db(model('CableTermination').definition.table).whereIn('id', ids);
    // a whole cable going away re-traces once, from the cable's own hook
    const dying = closure.get('Cable') ?? new Set<number>();
    // nor do the ends of objects being deleted themselves (the cabled hook frees those)
    const objectGoing = (r: Row) => !!closure.get(byContentType.get(r.termination_type)?.definition.name ?? '')?.has(Number(r.termination_id));
    const left = rows.filter((r) => !dying.has(Number(r.cable_id)) && !objectGoing(r));
    for (const r of left) await db(byContentType.get(r.termination_type)!.definition.table).where('id', r.termination_id).update({ cable_id: null, cable_end: null });
    if (!left.length) return;
    await db(model('CableTermination').definition.table).whereIn('id', left.map((r) => r.id)).delete();
    await retrace(db, left.flatMap((r) => [nodeKey(r.termination_type, r.termination_id), nodeKey(cableType(), r.cable_id)]));
  },
};
