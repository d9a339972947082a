/**
 * Image attachments (/api/extras/image-attachments/): a PNG uploaded as a multipart form comes back
 * byte for byte at its `image` URL, with its width and height read from it; JPEG, GIF and WebP headers
 * are read too, and a data URL in JSON works as the form does; a file that is not an image, one over
 * IMAGE_ATTACHMENT_MAX_SIZE and a missing file are 400s naming `image`; the parent is shown in its
 * nested form; filters; the bytes go with the attachment, and with its parent.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { ADMIN_TOKEN, expectStatus, startApp, type TestApp } from './helpers.js';

const LIST = '/api/extras/image-attachments/';
const MAX = 4096;

/** A real PNG of the given size (one filter byte and RGB pixels per row), CRCs and all. */
function png(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
  const crc = (b: Buffer) => { let c = 0xffffffff; for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height, 0x7f);
  for (let y = 0; y < height; y++) rows[y * (width * 3 + 1)] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([3, 0, 5, 0, 0, 0, 0]), Buffer.from([0x3b])]);
/** A baseline JPEG's markers up to its frame header: SOI, APP0 (JFIF), SOF0 with height 7 and width 9. */
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x07, 0x00, 0x09, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xff, 0xd9]);
/** A lossless WebP header (VP8L) of 12x34. */
const webp = (() => {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1'); b.writeUInt32LE(22, 4); b.write('WEBP', 8, 'latin1'); b.write('VP8L', 12, 'latin1'); b.writeUInt32LE(10, 16);
  b[20] = 0x2f; b.writeUInt32LE((12 - 1) | ((34 - 1) << 14), 21);
  return b;
})();

const test = suite<{ app: TestApp; site: any; rack: any }>('image attachments');

test.before(async (ctx) => {
  ctx.app = await startApp({ IMAGE_ATTACHMENT_MAX_SIZE: String(MAX) });
  ctx.site = await ctx.app.post('/api/dcim/sites/', { name: 'Photo site', slug: 'photo-site' });
  ctx.rack = await ctx.app.post('/api/dcim/racks/', { name: 'R1', site: ctx.site.id });
});
test.after(async ({ app }) => { await app.stop(); });

/** A multipart upload with the admin token. */
async function uploadWithToken(app: TestApp, fields: Record<string, string>, file?: { name: string; type: string; data: Buffer }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('image', new Blob([new Uint8Array(file.data)], { type: file.type }), file.name);
  const res = await fetch(`${app.url}${LIST}`, { method: 'POST', body: form, headers: { Authorization: `Token ${ADMIN_TOKEN}`, Accept: 'application/json' } });
  return { status: res.status, body: await res.json() as any };
}

test('a PNG uploaded as multipart/form-data reads back byte for byte; width and height from the image', async ({ app, site }) => {
  const data = png(20, 10);
  const made = await uploadWithToken(app, { content_type: 'dcim.site', object_id: String(site.id), name: 'Front' }, { name: 'front.png', type: 'image/png', data });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const a = made.body;
  assert.equal(Object.keys(a), ['id', 'url', 'display', 'content_type', 'object_id', 'parent', 'name', 'image', 'image_height', 'image_width', 'created', 'last_updated']);
  assert.is(a.content_type, 'dcim.site');
  assert.is(a.object_id, site.id);
  assert.equal([a.parent.id, a.parent.url, a.parent.name], [site.id, site.url, 'Photo site']);
  assert.equal([a.image_width, a.image_height, a.name, a.display], [20, 10, 'Front', 'Front']);
  assert.match(a.image, /^http:\/\/.+\/api\/extras\/image-attachments\/\d+\/image\/$/);
  const image = await fetch(a.image, { headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
  assert.is(image.status, 200);
  assert.is(image.headers.get('content-type'), 'image/png');
  assert.ok(Buffer.from(await image.arrayBuffer()).equals(data), 'the same bytes');
  const again = await app.get(`${LIST}${a.id}/`);
  assert.equal(again.image, a.image);
  const brief = await app.get(`${LIST}${a.id}/?brief=1`);
  assert.equal(Object.keys(brief).sort(), ['display', 'id', 'image', 'name', 'url']);
  // filters
  assert.is((await app.get(`${LIST}?content_type=dcim.site&object_id=${site.id}`)).count, 1);
  assert.is((await app.get(`${LIST}?name__ic=fro`)).count, 1);
  assert.is((await app.get(`${LIST}?q=front`)).count, 1);
  assert.is((await app.get(`${LIST}?content_type=dcim.rack`)).count, 0);
  const ct = (await app.get('/api/extras/content-types/?app_label=dcim&model=site')).results[0];
  assert.is((await app.get(`${LIST}?content_type_id=${ct.id}`)).count, 1);
  // renaming keeps the image; an unnamed attachment shows its file name
  const renamed = await app.patch(`${LIST}${a.id}/`, { name: '' });
  assert.is(renamed.display, 'front.png');
  assert.is(renamed.image_width, 20);
  expectStatus(await app.api('DELETE', `${LIST}${a.id}/`), 204);
  assert.is((await fetch(a.image, { headers: { Authorization: `Token ${ADMIN_TOKEN}` } })).status, 404);
});

test('JSON with a data URL; JPEG, GIF and WebP sizes read from their headers', async ({ app, rack }) => {
  for (const [type, data, size] of [['image/jpeg', jpeg, [9, 7]], ['image/gif', gif, [3, 5]], ['image/webp', webp, [12, 34]]] as const) {
    const a = await app.post(LIST, { content_type: 'dcim.rack', object_id: rack.id, image: `data:application/octet-stream;name=x;base64,${data.toString('base64')}` });
    assert.equal([a.image_width, a.image_height], [...size], type);
    const image = await fetch(a.image, { headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
    assert.is(image.headers.get('content-type'), type, 'the type is the bytes\', not the one sent');
    assert.ok(Buffer.from(await image.arrayBuffer()).equals(data));
  }
});

test('refused: not an image, too large, no file, a model without image attachments, a missing parent', async ({ app, site }) => {
  const text = await uploadWithToken(app, { content_type: 'dcim.site', object_id: String(site.id) }, { name: 'evil.png', type: 'image/png', data: Buffer.from('<?php echo 1; ?>') });
  assert.is(text.status, 400);
  assert.match(text.body.image[0], /not a PNG, JPEG, GIF or WebP/);
  // a valid PNG with trailing bytes, one past the limit
  const oversized = Buffer.concat([png(2, 2), randomBytes(MAX)]).subarray(0, MAX + 1);
  const big = await uploadWithToken(app, { content_type: 'dcim.site', object_id: String(site.id) }, { name: 'big.png', type: 'image/png', data: oversized });
  assert.is(big.status, 400);
  assert.match(big.body.image[0], /IMAGE_ATTACHMENT_MAX_SIZE/);
  const none = await app.api('POST', LIST, { content_type: 'dcim.site', object_id: site.id });
  expectStatus(none, 400);
  assert.ok(none.body.image, 'names image');
  const plain = await app.api('POST', LIST, { content_type: 'dcim.site', object_id: site.id, image: 'front.png' });
  expectStatus(plain, 400);
  assert.ok(plain.body.image);
  const wrongType = await app.api('POST', LIST, { content_type: 'tenancy.tenant', object_id: 1, image: `data:image/png;base64,${png(1, 1).toString('base64')}` });
  expectStatus(wrongType, 400);
  assert.equal(Object.keys(wrongType.body), ['content_type']);
  const missing = await app.api('POST', LIST, { content_type: 'dcim.site', object_id: 999999, image: `data:image/png;base64,${png(1, 1).toString('base64')}` });
  expectStatus(missing, 400);
  assert.is((await app.get(`${LIST}?content_type=dcim.site&object_id=${site.id}`)).count, 0, 'nothing was stored');
});

test('deleting the parent deletes its attachments and their bytes', async ({ app }) => {
  const site = await app.post('/api/dcim/sites/', { name: 'Gone', slug: 'gone' });
  const a = await app.post(LIST, { content_type: 'dcim.site', object_id: site.id, image: `data:image/png;base64,${png(2, 2).toString('base64')}` });
  expectStatus(await app.api('DELETE', `/api/dcim/sites/${site.id}/`), 204);
  expectStatus(await app.api('GET', `${LIST}${a.id}/`), 404);
});

test.run();
