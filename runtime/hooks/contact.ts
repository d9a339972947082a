/**
 * Contacts' groups (NetBox 4.3: any number of them, the m2m `groups`) in the 3.7 shape: one `group`,
 * the first of the contact's groups by name (then id), and a 3.7 write of `group` sets the groups to
 * that one group (null: none).
 */
import type { ModelHooks, Row } from '../data/registry.js';
import { model } from '../data/registry.js';
import { resolveRefs } from '../data/write-relations.js';
import type { Prepared } from '../data/write-input.js';

export const contact: ModelHooks = {
  computed: {
    async contact_group(rows, { db, refer }) {
      const ids = rows.map((r) => Number(r.id));
      const links = model('Contact').definition.fields.groups.through!;
      const groups = model('ContactGroup').definition.table;
      const first = new Map<number, unknown>();
      const found = await db(`${links} as l`).join(`${groups} as g`, 'g.id', 'l.to_id').whereIn('l.from_id', ids)
        .select('l.from_id', 'g.id').orderBy([{ column: 'g.name' }, { column: 'g.id' }]);
      for (const r of found as Row[]) if (!first.has(Number(r.from_id))) first.set(Number(r.from_id), refer('ContactGroup', Number(r.id)));
      return new Map(ids.map((id) => [id, first.get(id) ?? null]));
    },
  },
  async prepare(item, { db }) {
    if (!item.given?.has('group')) return;
    const value = item.input.group;
    const m2m = (item.m2m ??= {});
    if (value === null) { m2m.groups = []; return; }
    await resolveRefs(db, [{ item: 0, field: 'group', target: 'ContactGroup', value, apply: (id) => { m2m.groups = [id]; } }], [item as Prepared]);
  },
};
