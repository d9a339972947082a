/**
 * NetBox 4.6's `add_tags` and `remove_tags`: write-only lists beside `tags` that change an object's
 * tags without naming them all, so two clients tagging the same object do not undo each other. Read
 * from the body with the other fields (the tags they name resolved with the write's relations),
 * then turned into the object's whole tag list, which is stored as `tags` is.
 */
import type { Knex } from 'knex';
import type { ModelEntry } from '../core/types.js';
import type { Prepared, Ref } from './write-input.js';
import { TAGGED_ITEMS } from './tagged-items.js';
import { whereAny } from './any.js';
import { model } from './registry.js';

/** Reads `add_tags` and `remove_tags` of one element: checks their shape and queues their tags for resolving. */
export function readTagEdits(item: Prepared, input: Record<string, unknown>, creating: boolean, refs: Ref[], index: number): void {
  const given = (['add_tags', 'remove_tags'] as const).filter((key) => key in input);
  if (!given.length) return;
  const errs = item.errors;
  if (Array.isArray(input.tags) && input.tags.length) {
    errs.add('tags', 'Cannot specify "tags" together with "add_tags" or "remove_tags".');
    return;
  }
  if (creating && 'remove_tags' in input) errs.add('remove_tags', 'Cannot use "remove_tags" when creating a new object.');
  const edits: NonNullable<Prepared['tagEdits']> = { add: [], remove: [] };
  for (const key of given) {
    const list = input[key];
    if (!Array.isArray(list)) {
      errs.add(key, `Expected a list of items but got type "${typeof list}".`);
      continue;
    }
    const into = key === 'add_tags' ? edits.add : edits.remove;
    for (const t of list) refs.push({ item: index, field: key, target: 'Tag', value: t, apply: (id) => { if (!into.includes(id)) into.push(id); } });
  }
  // `tags` given (empty) replaces the whole list, as in NetBox: the edits then change nothing
  if (!('tags' in input)) item.tagEdits = edits;
}

/**
 * Turns each element's edits into its whole tag list (its current tags, plus those added, less those
 * removed), refusing a tag both added and removed. One read of the current tags for all elements.
 */
export async function applyTagEdits(db: Knex, entry: ModelEntry, items: Prepared[]): Promise<void> {
  const edited = items.filter((i) => i.tagEdits && i.errors.empty);
  if (!edited.length) return;
  const current = new Map<number, number[]>();
  const existing = edited.filter((i) => i.id !== null).map((i) => i.id!);
  if (existing.length) {
    const rows = await whereAny(db, db(TAGGED_ITEMS).select('object_id', 'tag_id').where('object_type', entry.definition.contentType), 'object_id', existing);
    for (const r of rows) current.set(Number(r.object_id), [...(current.get(Number(r.object_id)) ?? []), Number(r.tag_id)]);
  }
  const tagTable = model('Tag').definition.table;
  for (const item of edited) {
    const { add, remove } = item.tagEdits!;
    const both = add.filter((id) => remove.includes(id));
    if (both.length) {
      const names = (await db(tagTable).whereIn('id', both).orderBy('name').pluck('name')).join(', ');
      item.errors.add('remove_tags', `Tags may not be present in both "add_tags" and "remove_tags": ${names}`);
      continue;
    }
    const before = item.id === null ? [] : current.get(item.id) ?? [];
    item.tags = [...new Set([...before, ...add])].filter((id) => !remove.includes(id));
  }
}
