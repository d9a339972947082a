/**
 * FHRP groups: shown as NetBox's str(): "[name ]<protocol label>: <group id>", followed by the first
 * of its virtual addresses in parentheses when it has one; the related_ip filter (NetBox): groups
 * with a virtual IP inside the network of one of the given addresses, in the same VRF (or both in
 * the global table).
 */
import { errors } from '../core/errors.js';
import { idFromText } from '../core/ids.js';
import { choiceSet, model, type ModelHooks, type Row } from '../data/registry.js';

/** where displayData leaves a group's first address */
const FIRST_IP = Symbol('first address');

function display(row: Row): string {
  const label = choiceSet('fhrp-group-protocol').choices.find((c) => c.value === row.protocol)?.label ?? row.protocol;
  const name = `${row.name ? `${row.name} ` : ''}${label}: ${row.group_id}`;
  const first = (row as Record<symbol, unknown>)[FIRST_IP];
  return first ? `${name} (${first})` : name;
}

export const fhrpGroup: ModelHooks = {
  display,
  /** each group's first address, in NetBox's order (by address) */
  async displayData(rows, { db, entry }) {
    const addresses = model('IPAddress').definition;
    const found = await db(addresses.table).select('assigned_object_id', 'address')
      .where('assigned_object_type', entry!.definition.contentType).whereIn('assigned_object_id', rows.map((r) => Number(r.id)))
      .orderBy([{ column: 'family' }, { column: 'address_host' }, { column: 'address_length' }, { column: 'id' }]);
    const first = new Map<number, string>();
    for (const r of found) if (!first.has(Number(r.assigned_object_id))) first.set(Number(r.assigned_object_id), String(r.address));
    for (const row of rows) (row as Record<symbol, unknown>)[FIRST_IP] = first.get(Number(row.id)) ?? null;
  },
  filters: {
    related_ip(qb, values, { db, entry }) {
      const ids = values.map((v) => {
        const id = idFromText(v.trim());
        if (id === null) throw errors.badFilter('related_ip', `Select a valid choice. ${v} is not one of the available choices.`);
        return id;
      });
      const addresses = model('IPAddress').definition.table;
      // g: the groups' addresses; i: the given ones. Contained or equal: inside i's network, no wider than it.
      const related = db(`${addresses} as g`).select('g.assigned_object_id').where('g.assigned_object_type', entry!.definition.contentType)
        .whereExists(db(`${addresses} as i`).whereIn('i.id', ids)
          .whereRaw('g.family = i.family and g.address_host >= i.address_first and g.address_host <= i.address_last and g.address_length >= i.address_length')
          .whereRaw('(g.vrf_id = i.vrf_id or (g.vrf_id is null and i.vrf_id is null))'));
      qb.whereIn('id', related);
    },
  },
};
