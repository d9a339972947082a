/**
 * The files NetBox keeps under its MEDIA_ROOT that the import (netbox-import.ts, `--media DIR`)
 * carries into the stored files: image attachments' images and image fields' files (device types'
 * front and rear images), each read, checked as an image and stored as an upload is.
 */
import type { Knex } from 'knex';
import { readFile } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import { putFile } from './stored-files.js';
import { imageOwner } from '../core/image-fields.js';
import { readImageHeader } from '../core/image-header.js';
import type { ModelEntry } from '../core/types.js';
import type { ModelSummary, Src } from './netbox-import-types.js';

/**
 * The file `name` (a path under NetBox's MEDIA_ROOT, `media`), kept as the stored file of `owner`
 * (a content type, or an image field's owner type) and `id` when it is there and an image; counted
 * in `files`, with the reason of each one left out in `missing`. Resolves to the bytes kept.
 */
async function carryFile(trx: Knex, owner: string, id: number, name: string, media: string | undefined, files: ModelSummary, missing: string[]): Promise<Buffer | null> {
  if (!name) return null;
  files.read++;
  if (!media) { files.skipped++; return null; }
  const root = resolve(media);
  const path = resolve(root, name);
  let data: Buffer | null = null;
  if (path.startsWith(root + sep)) data = await readFile(path).catch(() => null);
  const info = data && readImageHeader(data);
  if (!data || !info) {
    files.skipped++;
    missing.push(`row ${id}: ${name} ${data ? 'is not a PNG, JPEG, GIF or WebP image' : `is not in ${media}`}`);
    return null;
  }
  await putFile(trx, owner, id, { contentType: info.type, data });
  files.imported++;
  return data;
}

/**
 * The files of one batch of a model's rows, once the rows are in: an image attachment's `image`
 * (with the size an upload records beside it, where the model keeps it), and each image field's
 * file, whose name the field then holds (blank while the file is not here, so the field and its
 * has_<field> filter say what is served).
 */
export async function carryFiles(trx: Knex, entry: ModelEntry, batch: Src[], media: string | undefined, files: ModelSummary, missing: string[]): Promise<void> {
  const d = entry.definition;
  const attachment = d.hooks.includes('image_attachment');
  const imageFields = Object.values(d.fields).filter((f) => f.type === 'image');
  for (const src of batch) {
    const id = Number(src.id);
    if (attachment) {
      const data = await carryFile(trx, d.contentType, id, String(src.image ?? ''), media, files, missing);
      if (data && 'image_size' in d.fields) await trx(d.table).where('id', id).update({ image_size: data.length });
    }
    for (const f of imageFields) {
      const name = String(src[f.columns[0]] ?? '');
      if (await carryFile(trx, imageOwner(d.contentType, f.name), id, name, media, files, missing)) await trx(d.table).where('id', id).update({ [f.columns[0]]: basename(name).slice(-100) });
    }
  }
}
