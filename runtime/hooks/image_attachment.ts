/**
 * Image attachments: the upload (a multipart form's file or a data URL in JSON, field `image`) is
 * checked by its bytes (PNG, JPEG, GIF or WebP, at most IMAGE_ATTACHMENT_MAX_SIZE), its width and
 * height are read from its header, and the bytes are kept in the database (core_stored_file), so
 * every process serves them; `image` reads as the URL they are served at (the `image_file` action),
 * and they go with the attachment.
 */
import type { ComputedContext, ModelHooks, WriteItem } from '../data/registry.js';
import { getFile, putFile, removeFiles, type StoredFile } from '../data/stored-files.js';
import { checkImage } from '../core/image-upload.js';
import { errors } from '../core/errors.js';
import type { ModelEntry } from '../core/types.js';
import { byContentTypeId } from './content_type.js';

const FIELD = 'image';
const ACTION = 'image_file';

/** Uploads checked by prepare, stored by afterWrite once the attachment has its id. */
const uploads = new WeakMap<WriteItem, StoredFile>();

function served(entry: ModelEntry, baseUrl: string, id: unknown): string {
  const route = entry.routes.extra.find((r) => r.hook === ACTION)!;
  return `${baseUrl}${route.path.replace(':id', String(id))}`;
}

export const imageAttachment: ModelHooks = {
  prepare(item, { rules }) {
    // the model keeps its own date-time timestamps (NetBox's ChangeLoggedModel)
    if (item.existing) item.values.last_updated = new Date().toISOString();
    if (!(FIELD in item.input)) {
      if (!item.existing) item.errors.add(FIELD, 'No file was submitted.');
      return;
    }
    const image = checkImage(item.input[FIELD], rules?.imageAttachmentMaxSize ?? Infinity);
    if ('error' in image) {
      item.errors.add(FIELD, image.error);
      return;
    }
    item.values.image_name = image.name;
    item.values.image_width = image.width;
    item.values.image_height = image.height;
    item.values.image_size = image.data.length;
    uploads.set(item, { contentType: image.type, data: image.data });
  },
  async afterWrite(_rows, ctx) {
    for (const item of ctx.items) {
      const file = uploads.get(item);
      if (file && item.id !== null) await putFile(ctx.db, ctx.entry!.definition.contentType, item.id, file);
    }
    return false;
  },
  async beforeDelete(ids, ctx) {
    await removeFiles(ctx.db, ctx.entry!.definition.contentType, ids);
  },
  filters: {
    content_type_id: byContentTypeId('content_type_id', 'object_type'),
    object_type_id: byContentTypeId('object_type_id', 'object_type'),
  },
  computed: {
    async image_url(rows, ctx: ComputedContext) {
      return new Map(rows.map((r) => [Number(r.id), served(ctx.entry!, ctx.baseUrl ?? '', r.id)]));
    },
  },
  actions: {
    /** GET …/image/: the stored bytes, as uploaded, with their type. */
    async [ACTION]({ db, entry, row }) {
      const file = await getFile(db, entry.definition.contentType, Number(row.id));
      if (!file) throw errors.notFound();
      return { status: 200, type: file.contentType, body: file.data };
    },
  },
};
