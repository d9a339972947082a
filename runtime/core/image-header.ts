/**
 * What an uploaded image is, from its bytes rather than from what the client says: the type by its
 * magic bytes (PNG, JPEG, GIF, WebP) and its width and height from its header, as NetBox's
 * ImageField reads them (Pillow) into image_width and image_height.
 */
export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export interface ImageInfo {
  type: ImageType;
  width: number;
  height: number;
}

const ascii = (data: Buffer, at: number, text: string) => data.length >= at + text.length && data.toString('latin1', at, at + text.length) === text;

function png(data: Buffer): ImageInfo | null {
  // signature, then the IHDR chunk: length, "IHDR", width, height (big-endian)
  if (data.length < 24 || !ascii(data, 12, 'IHDR')) return null;
  return { type: 'image/png', width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

function gif(data: Buffer): ImageInfo | null {
  if (data.length < 10) return null;
  return { type: 'image/gif', width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
}

function webp(data: Buffer): ImageInfo | null {
  if (ascii(data, 12, 'VP8 ') && data.length >= 30 && data[23] === 0x9d && data[24] === 0x01 && data[25] === 0x2a) {
    return { type: 'image/webp', width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff };
  }
  if (ascii(data, 12, 'VP8L') && data.length >= 25 && data[20] === 0x2f) {
    const bits = data.readUInt32LE(21);
    return { type: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (ascii(data, 12, 'VP8X') && data.length >= 30) {
    return { type: 'image/webp', width: data.readUIntLE(24, 3) + 1, height: data.readUIntLE(27, 3) + 1 };
  }
  return null;
}

/** The first start-of-frame segment's size (SOF0-SOF15 but DHT, JPG and DAC), walking the segments. */
function jpeg(data: Buffer): ImageInfo | null {
  let at = 2;
  while (at + 9 < data.length) {
    if (data[at] !== 0xff) return null;
    const marker = data[at + 1];
    if (marker === 0xff) { at++; continue; }
    // markers without a length: TEM and RST0-7
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { at += 2; continue; }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { type: 'image/jpeg', height: data.readUInt16BE(at + 5), width: data.readUInt16BE(at + 7) };
    }
    at += 2 + data.readUInt16BE(at + 2);
  }
  return null;
}

/** The image's type and size, or null when the bytes are none of the four types (or cut short). */
export function readImageHeader(data: Buffer): ImageInfo | null {
  if (data.length >= 8 && data.readUInt32BE(0) === 0x89504e47 && data.readUInt32BE(4) === 0x0d0a1a0a) return png(data);
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return jpeg(data);
  if (ascii(data, 0, 'GIF87a') || ascii(data, 0, 'GIF89a')) return gif(data);
  if (ascii(data, 0, 'RIFF') && ascii(data, 8, 'WEBP')) return webp(data);
  return null;
}
