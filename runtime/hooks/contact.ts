/**
 * Contacts' groups (NetBox 4.3: any number of them, the m2m `groups`) in the 3.7 shape: one `group`,
 * the first of the contact's groups by name (then id), and a 3.7 write of `group` sets the groups to
 * that one group (null: none). NetBox 3.7's rule that a name is unique within a group holds for each
 * of a contact's groups.
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row, WriteItem } from '../data/registry.js';
import { model } from '../data/registry.js';
import { resolveRefs } from '../data/write-relations.js';
import type { Prepared } from '../data/write-input.js';

const links = () => model('Contact').definition.fields.groups.through!;

/** Another contact of the same name in one of the groups the contact will be in: refused. */
async function checkUniqueName(db: Knex, item: WriteItem): Promise<void> {
  if (!('name' in item.values) && !item.m2m?.groups) return;
  const name = item.values.name ?? item.existing?.name;
  const groups = item.m2m?.groups ?? (item.id === null ? [] : (await db(links()).where('from_id', item.id).select('to_id')).map((r: Row) => Number(r.to_id)));
  if (!groups.length) return;
  const clash = await db(`${links()} as l`).join(`${model('Contact').definition.table} as c`, 'c.id', 'l.from_id')
    .join(`${model('ContactGroup').definition.table} as g`, 'g.id', 'l.to_id')
    .whereIn('l.to_id', groups).where('c.name', name).modify((q) => { if (item.id !== null) q.whereNot('c.id', item.id); }).first('g.name');
  if (clash) item.errors.add('__all__', `A contact named ${String(name)} is already in group ${clash.name}.`);
}

export const contact: ModelHooks = {
  computed: {
    async contact_group(rows, { db, refer }) {
      const ids = rows.map((r) => Number(r.id));
      const groups = model('ContactGroup').definition.table;
      const first = new Map<number, unknown>();
      const found = await db(`${links()} as l`).join(`${groups} as g`, 'g.id', 'l.to_id').whereIn('l.from_id', ids)
        .select('l.from_id', 'g.id').orderBy([{ column: 'g.name' }, { column: 'g.id' }]);
      for (const r of found as Row[]) if (!first.has(Number(r.from_id))) first.set(Number(r.from_id), refer('ContactGroup', Number(r.id)));
      return new Map(ids.map((id) => [id, first.get(id) ?? null]));
    },
  },
  async prepare(item, { db }) {
    if (item.given?.has('group')) {
      const value = item.input.group;
      const m2m = (item.m2m ??= {});
      if (value === null) m2m.groups = [];
      else await resolveRefs(db, [{ item: 0, field: 'group', target: 'ContactGroup', value, apply: (id) => { m2m.groups = [id]; } }], [item as Prepared]);
    }
    if (item.errors.empty) await checkUniqueName(db, item);
  },
};
