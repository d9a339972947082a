/**
 * Objects that take their content from a data file (config templates, export templates, config
 * contexts): writing `data_file` copies the file into the content field and sets `data_source`,
 * `data_path` and `data_synced` from it; no data file clears all three. POST /sync/ copies the
 * file again (the source's last sync), change-logged like any update.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ActionContext, ModelHooks, Row, WriteItem } from '../data/registry.js';
import { ApiError } from '../core/errors.js';
import { model } from '../data/registry.js';
import { getFile } from '../data/stored-files.js';
import { renderRows } from '../data/serialize.js';
import { recordWrites, snapshots } from '../data/changes.js';
import { bumpCacheVersion } from '../data/cache.js';

/** The content field's column value made from the file's text; throws an Error saying why it cannot be. */
export type Convert = (text: string) => unknown;

/** A data file's row and text, or why it cannot be used. */
async function readDataFile(db: Knex, id: number): Promise<{ file: Row; text: string }> {
  const entry = model('DataFile');
  const file = await db(entry.definition.table).where('id', id).first();
  if (!file) throw new Error(`Data file ${id} does not exist.`);
  const stored = await getFile(db, entry.definition.contentType, id);
  const text = stored ? new TextDecoder('utf-8', { fatal: true }).decode(stored.data) : '';
  return { file, text };
}

async function content(db: Knex, id: number, convert: Convert): Promise<{ file: Row; value: unknown }> {
  const { file, text } = await readDataFile(db, id);
  return { file, value: convert(text) };
}

export function syncedData(field: string, convert: Convert): ModelHooks {
  return {
    async prepare(item: WriteItem, { db }) {
      const given = 'data_file' in item.input;
      const fileId = given ? item.values.data_file_id : item.existing?.data_file_id;
      if (fileId === null || fileId === undefined) {
        Object.assign(item.values, { data_source_id: null, data_path: '', data_synced: null });
        return;
      }
      if (!given) return;
      try {
        const { file, value } = await content(db, Number(fileId), convert);
        Object.assign(item.values, { data_source_id: file.source_id, data_path: file.path, data_synced: new Date().toISOString(), [field]: value });
      } catch (error) {
        item.errors.add('data_file', `The file cannot be used: ${(error as Error).message}`);
      }
    },
    actions: {
      /** POST /sync/: the content copied again from the data file, if the object has one. */
      async sync_data_file({ db, entry, row, user, baseUrl, requestId }: ActionContext) {
        const table = entry.definition.table;
        if (row.data_file_id !== null && row.data_file_id !== undefined) {
          let value: unknown;
          try {
            value = (await content(db, Number(row.data_file_id), convert)).value;
          } catch (error) {
            throw new ApiError(400, { data_file: [`The file cannot be used: ${(error as Error).message}`] });
          }
          await db.transaction(async (trx) => {
            const now = new Date().toISOString();
            const before = await snapshots(trx, entry, [Number(row.id)]);
            await trx(table).where('id', row.id).update({ [field]: value, data_synced: now, ...(entry.definition.timestamps ? { last_updated: now } : {}) });
            await bumpCacheVersion(trx, [entry.definition.name]);
            await recordWrites({ db: trx, user, requestId: requestId ?? randomUUID(), baseUrl, now }, entry, 'update', [Number(row.id)], before);
          });
        }
        const [body] = await renderRows(entry, await db(table).where('id', row.id), { db, baseUrl });
        return { status: 200, body };
      },
    },
  };
}
