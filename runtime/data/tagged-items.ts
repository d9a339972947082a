/**
 * Where every model's `tags` are stored: one table of (object type, object id, tag) rows, created by
 * runtime/data/migrations/0002_tagging.ts, so that a list's tags are one query whatever its model.
 */
export const TAGGED_ITEMS = 'extras_taggeditem';
