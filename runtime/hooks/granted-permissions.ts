/**
 * NetBox 4's `permissions` of users and groups: the object permissions whose `users` (or `groups`)
 * name the object, read as a list and written as one (ids, or attributes identifying each). A write
 * replaces the object's whole set; the links are the permission's own m2m, so either side reads
 * what the other wrote.
 */
import type { Knex } from 'knex';
import type { ModelHooks, Row, WriteItem } from '../data/registry.js';
import { model } from '../data/registry.js';
import { resolveRefs } from '../data/write-relations.js';
import type { Prepared } from '../data/write-input.js';
import { bumpCacheVersion } from '../data/cache.js';

const FIELD = 'permissions';

/** The prepare and afterWrite of a model whose objects ObjectPermission's m2m `side` names. */
export function grantedPermissions(side: 'users' | 'groups'): Pick<ModelHooks, 'prepare' | 'afterWrite'> {
  /** the permission ids a write gives, kept from prepare to afterWrite */
  const chosen = new WeakMap<WriteItem, number[]>();
  const links = () => model('ObjectPermission').definition.fields[side].through!;
  return {
    async prepare(item, { db }) {
      if (!item.given?.has(FIELD)) return;
      const value = item.input[FIELD];
      if (!Array.isArray(value)) {
        item.errors.add(FIELD, `Expected a list of items but got type "${value === null ? 'null' : typeof value}".`);
        return;
      }
      const ids: number[] = [];
      await resolveRefs(db, value.map((v) => ({ item: 0, field: FIELD, target: 'ObjectPermission', value: v, apply: (id: number) => { if (!ids.includes(id)) ids.push(id); } })), [item as Prepared]);
      chosen.set(item, ids);
    },
    async afterWrite(_rows: Row[], { db, items }) {
      const given = items.filter((i) => chosen.has(i) && i.id !== null);
      if (!given.length) return false;
      await replaceLinks(db, links(), given.map((i) => [i.id!, chosen.get(i)!]));
      // the grants each user holds are cached per process
      await bumpCacheVersion(db, ['ObjectPermission']);
    },
  };
}

async function replaceLinks(db: Knex, through: string, sets: [number, number[]][]): Promise<void> {
  await db(through).whereIn('to_id', sets.map(([id]) => id)).delete();
  const rows = sets.flatMap(([id, permissions]) => permissions.map((from) => ({ from_id: from, to_id: id })));
  if (rows.length) await db(through).insert(rows);
}
