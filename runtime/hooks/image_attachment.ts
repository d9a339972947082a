/**
 * Image attachments: the upload (a multipart form's file or a data URL in JSON, field `image`) is
 * checked by its bytes (PNG, JPEG, GIF or WebP, at most IMAGE_ATTACHMENT_MAX_SIZE), its width and
 * height are read from its header, and the bytes are kept in the database (core_stored_file), so
 * every process serves them; `image` reads as the URL they are served at (the `image_file` action),
 * and they go with the attachment.
 */
import type { ComputedContext, ModelHooks, WriteItem } from '../data/registry.js';
import { getFile, putFile, removeFiles, type StoredFile } from '../data/stored-files.js';
import { parseDataUrl } from '../core/data-url.js';
import { readImageHeader } from '../core/image-header.js';
import { errors } from '../core/errors.js';
import type { ModelEntry } from '../core/types.js';
import { byContentTypeId } from './content_type.js';

const FIELD = 'image';
const ACTION = 'image_file';
/** Pillow's limits aside, NetBox stores height and width in PositiveSmallIntegerFields. */
const MAX_SIDE = 32767;
const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Uploads checked by prepare, stored by afterWrite once the attachment has its id. */
const uploads = new WeakMap<WriteItem, StoredFile>();

/** The file's name as stored: its last path segment, without control characters, at most 100 characters. */
function fileName(given: string | null, type: string): string {
  const base = (given ?? '').split(/[/\\]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(-100);
  return base || `image.${EXTENSIONS[type]}`;
}

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
    const value = item.input[FIELD];
    const upload = typeof value === 'string' ? parseDataUrl(value) : null;
    if (!upload) {
      item.errors.add(FIELD, 'The submitted data was not a file. Send it as multipart/form-data, or as a data URL (data:image/png;base64,...).');
      return;
    }
    const max = rules?.imageAttachmentMaxSize ?? Infinity;
    if (upload.data.length > max) {
      item.errors.add(FIELD, `The file is ${upload.data.length} bytes; the largest accepted is ${max} bytes (IMAGE_ATTACHMENT_MAX_SIZE).`);
      return;
    }
    const info = readImageHeader(upload.data);
    if (!info) {
      item.errors.add(FIELD, 'Upload a valid image: the file is not a PNG, JPEG, GIF or WebP image, or is corrupted.');
      return;
    }
    if (info.width < 1 || info.height < 1 || info.width > MAX_SIDE || info.height > MAX_SIDE) {
      item.errors.add(FIELD, `Upload a valid image: ${info.width}x${info.height} pixels is outside 1 to ${MAX_SIDE} on a side.`);
      return;
    }
    item.values.image_name = fileName(upload.name, info.type);
    item.values.image_width = info.width;
    item.values.image_height = info.height;
    item.values.image_size = upload.data.length;
    uploads.set(item, { contentType: info.type, data: upload.data });
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
