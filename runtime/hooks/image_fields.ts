/**
 * Image fields (schema type `image`: a device type's front_image and rear_image), for any model that
 * has them; the generator names this hook and a GET route per field for such a model. An upload (a
 * multipart form's file, or a data URL in JSON) is checked as an image attachment's is
 * (runtime/core/image-upload.ts) and kept in core_stored_file under the field's own owner type, so
 * every process on one database serves it; the column holds the file's name, blank without one, so
 * `has_<field>` filters on it. null or a blank value removes the image. The files go with the row.
 */
import type { ModelHooks, WriteItem } from '../data/registry.js';
import { getFile, putFile, removeFiles, type StoredFile } from '../data/stored-files.js';
import { checkImage } from '../core/image-upload.js';
import { IMAGE_FILE, imageOwner } from '../core/image-fields.js';
import { errors } from '../core/errors.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';

/** What prepare decided per field, stored or removed by afterWrite once the row has its id. */
const pending = new WeakMap<WriteItem, Map<string, StoredFile | null>>();

const imageFields = (entry: ModelEntry): FieldDefinition[] => Object.values(entry.definition.fields).filter((f) => f.type === 'image');

export const imageFieldsHook: ModelHooks = {
  prepare(item, { entry, rules }) {
    for (const f of imageFields(entry!)) {
      if (!(f.name in item.input)) continue;
      const value = item.input[f.name];
      const changes = pending.get(item) ?? pending.set(item, new Map()).get(item)!;
      if (value === null || value === '') {
        item.values[f.columns[0]] = '';
        changes.set(f.name, null);
        continue;
      }
      const image = checkImage(value, rules?.imageAttachmentMaxSize ?? Infinity);
      if ('error' in image) {
        item.errors.add(f.name, image.error);
        continue;
      }
      item.values[f.columns[0]] = image.name;
      changes.set(f.name, { contentType: image.type, data: image.data });
    }
  },
  async afterWrite(_rows, ctx) {
    const contentType = ctx.entry!.definition.contentType;
    for (const item of ctx.items) {
      const changes = pending.get(item);
      if (!changes || item.id === null) continue;
      for (const [field, file] of changes) {
        if (file) await putFile(ctx.db, imageOwner(contentType, field), item.id, file);
        else await removeFiles(ctx.db, imageOwner(contentType, field), [item.id]);
      }
    }
    return false;
  },
  async beforeDelete(ids, ctx) {
    for (const f of imageFields(ctx.entry!)) await removeFiles(ctx.db, imageOwner(ctx.entry!.definition.contentType, f.name), ids);
  },
  actions: {
    /** GET …/<id>/<field>/: the stored bytes, as uploaded, with their type. */
    async [IMAGE_FILE]({ db, entry, row, field }) {
      const file = field ? await getFile(db, imageOwner(entry.definition.contentType, field), Number(row.id)) : null;
      if (!file) throw errors.notFound();
      return { status: 200, type: file.contentType, body: file.data };
    },
  },
};
