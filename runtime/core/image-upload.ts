/**
 * An uploaded image checked by its bytes, as image attachments and image fields take it: a data
 * URL (what a multipart form's file becomes, runtime/http/form-body.ts), at most `max` bytes
 * (IMAGE_ATTACHMENT_MAX_SIZE), a PNG, JPEG, GIF or WebP image whose sides NetBox's
 * PositiveSmallIntegerFields can hold. The answer is the image, or the error message to report.
 */
import { parseDataUrl } from './data-url.js';
import { readImageHeader } from './image-header.js';

/** Pillow's limits aside, NetBox stores height and width in PositiveSmallIntegerFields. */
const MAX_SIDE = 32767;
const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** The content types an upload may be (a file input's `accept`). */
export const IMAGE_TYPES = Object.keys(EXTENSIONS);

export interface CheckedImage {
  /** the image's own type, read from its bytes */
  type: string;
  data: Buffer;
  /** the file's name as stored: its last path segment, without control characters, at most 100 characters */
  name: string;
  width: number;
  height: number;
}

function fileName(given: string | null, type: string): string {
  const base = (given ?? '').split(/[/\\]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(-100);
  return base || `image.${EXTENSIONS[type]}`;
}

export function checkImage(value: unknown, max: number): CheckedImage | { error: string } {
  const upload = typeof value === 'string' ? parseDataUrl(value) : null;
  if (!upload) return { error: 'The submitted data was not a file. Send it as multipart/form-data, or as a data URL (data:image/png;base64,...).' };
  if (upload.data.length > max) return { error: `The file is ${upload.data.length} bytes; the largest accepted is ${max} bytes (IMAGE_ATTACHMENT_MAX_SIZE).` };
  const info = readImageHeader(upload.data);
  if (!info) return { error: 'Upload a valid image: the file is not a PNG, JPEG, GIF or WebP image, or is corrupted.' };
  if (info.width < 1 || info.height < 1 || info.width > MAX_SIDE || info.height > MAX_SIDE) {
    return { error: `Upload a valid image: ${info.width}x${info.height} pixels is outside 1 to ${MAX_SIDE} on a side.` };
  }
  return { type: info.type, data: upload.data, name: fileName(upload.name, info.type), width: info.width, height: info.height };
}
