/**
 * NetBox 2.x's `connection_status`, which the spec keeps on an IP address's assigned interface: true
 * when the interface's cable path is complete and active (it is connected), false otherwise. Named
 * by a generic relation's `extra` in the schema; read from the stored paths, one query per target
 * type for the whole page (none when no row points at such a target).
 */
import type { ComputedContext, ModelHooks, Row } from '../data/registry.js';
import { pathsOf } from './cable_paths.js';

const HOOK = 'connection_status';

async function connectionStatus(rows: Row[], ctx: ComputedContext): Promise<Map<number, unknown>> {
  const out = new Map<number, unknown>();
  for (const f of Object.values(ctx.entry!.definition.fields)) {
    for (const x of Object.values(f.extra ?? {})) {
      if (x.hook !== HOOK) continue;
      for (const type of x.on) {
        const own = rows.filter((r) => r[`${f.name}_type`] === type && r[`${f.name}_id`] !== null && r[`${f.name}_id`] !== undefined);
        if (!own.length) continue;
        const paths = await pathsOf(ctx.db, type, [...new Set(own.map((r) => Number(r[`${f.name}_id`])))]);
        for (const r of own) {
          const p = paths.get(Number(r[`${f.name}_id`]));
          out.set(Number(r.id), !!p && p.isComplete && p.isActive);
        }
      }
    }
  }
  return out;
}

export const connectionStatusHooks: ModelHooks = {
  computed: { [HOOK]: connectionStatus },
  // it reads the relation's type and id columns only
  computedReadsIpBytes: false,
};
