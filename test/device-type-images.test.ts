/**
 * Device types' front and rear images (schema field type `image`, NetBox's ImageFields), through
 * HTTP: a PNG sent as a multipart form's file (as NetBox takes it) or as a data URL in JSON reads as
 * the URL it is served at, in 3.7 and 4.6; that URL serves the same bytes with the image's type
 * (the file is in the database, core_stored_file); has_front_image / has_rear_image filter on
 * whether a file is there; a file that is not an image or is over IMAGE_ATTACHMENT_MAX_SIZE is a 400
 * naming the field; null (JSON) or a blank form value removes the image; the device type's page
 * shows it; deleting the device type removes its files.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_TOKEN, startApp, type TestApp } from './helpers.js';

const LIST = '/api/dcim/device-types/';
const MAX = 4096;
/** A PNG of 2x1 pixels. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==', 'base64');
/** A GIF of 3x5 pixels (its header). */
const GIF = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([3, 0, 5, 0, 0, 0, 0]), Buffer.from([0x3b])]);

const test = suite<{ app: TestApp; manufacturer: any }>('device type images');

test.before(async (ctx) => {
  ctx.app = await startApp({ IMAGE_ATTACHMENT_MAX_SIZE: String(MAX), RUN_WORKER: '0' });
  ctx.manufacturer = await ctx.app.post('/api/dcim/manufacturers/', { name: 'Imaging', slug: 'imaging' });
});
test.after(async ({ app }) => { await app.stop(); });

/** A multipart PATCH of one device type with the admin token. */
async function patchForm(app: TestApp, path: string, fields: Record<string, string | { name: string; type: string; data: Buffer }>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') form.append(k, v);
    else form.append(k, new Blob([new Uint8Array(v.data)], { type: v.type }), v.name);
  }
  const res = await fetch(`${app.url}${path}`, { method: 'PATCH', body: form, headers: { Authorization: `Token ${ADMIN_TOKEN}`, Accept: 'application/json' } });
  return { status: res.status, body: await res.json() as any };
}

const fetchFile = (url: string) => fetch(url, { headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
const ids = async (app: TestApp, query: string) => (await app.get(`${LIST}?manufacturer_id=${(await app.get('/api/dcim/manufacturers/?slug=imaging')).results[0].id}&${query}`)).results.map((r: any) => r.id).sort();

test('upload as a form, read the URL in both versions, fetch the file, filter, clear', async ({ app, manufacturer }) => {
  const plain = await app.post(LIST, { manufacturer: manufacturer.id, model: 'Plain', slug: 'plain' });
  assert.is(plain.front_image, null, 'no image: null');
  assert.is(plain.rear_image, null);
  const typed = await app.post(LIST, { manufacturer: manufacturer.id, model: 'Pictured', slug: 'pictured' });

  const made = await patchForm(app, `${LIST}${typed.id}/`, { front_image: { name: 'front.png', type: 'image/png', data: PIXEL }, description: 'with a photo' });
  assert.is(made.status, 200, JSON.stringify(made.body));
  assert.is(made.body.description, 'with a photo', 'the form\'s other fields are written too');
  assert.match(made.body.front_image, new RegExp(`^http://[^/]+/api/dcim/device-types/${typed.id}/front_image/$`));
  assert.is(made.body.rear_image, null);
  const v46 = await app.get(`/v4.6${LIST}${typed.id}/`);
  assert.match(v46.front_image, new RegExp(`^http://[^/]+/v4\\.6/api/dcim/device-types/${typed.id}/front_image/$`), 'the 4.6 API names the file under its own base');
  for (const url of [made.body.front_image, v46.front_image]) {
    const file = await fetchFile(url);
    assert.is(file.status, 200);
    assert.is(file.headers.get('content-type'), 'image/png');
    assert.ok(Buffer.from(await file.arrayBuffer()).equals(PIXEL), 'the bytes uploaded');
  }
  assert.is((await fetchFile(made.body.front_image.replace('front_image', 'rear_image'))).status, 404, 'no rear image: not found');
  assert.is((await fetch(made.body.front_image)).status, 403, 'the file needs the rights to view the device type');

  // JSON: a data URL; the type served is the bytes', not the one sent
  const rear = await app.patch(`/v4.6${LIST}${typed.id}/`, { rear_image: `data:application/octet-stream;name=rear.gif;base64,${GIF.toString('base64')}` });
  assert.match(rear.rear_image, /\/rear_image\/$/);
  assert.is((await fetchFile(rear.rear_image)).headers.get('content-type'), 'image/gif');

  assert.equal(await ids(app, 'has_front_image=true'), [typed.id]);
  assert.equal(await ids(app, 'has_front_image=false'), [plain.id]);
  assert.equal(await ids(app, 'has_rear_image=true'), [typed.id]);
  assert.equal((await app.get(`/v4.6${LIST}?has_front_image=1&slug=pictured`)).count, 1, '4.6 filters the same');

  // refusals name the field and keep what was there
  const notImage = await patchForm(app, `${LIST}${typed.id}/`, { front_image: { name: 'notes.png', type: 'image/png', data: Buffer.from('not an image at all') } });
  assert.is(notImage.status, 400);
  assert.match(notImage.body.front_image[0], /valid image/);
  const tooBig = await app.api('PATCH', `${LIST}${typed.id}/`, { front_image: `data:image/png;base64,${Buffer.concat([PIXEL, Buffer.alloc(MAX)]).toString('base64')}` });
  assert.is(tooBig.status, 400);
  assert.match(tooBig.body.front_image[0], /IMAGE_ATTACHMENT_MAX_SIZE/);
  assert.is((await app.api('PATCH', `${LIST}${typed.id}/`, { front_image: 'https://example.com/x.png' })).status, 400, 'a URL is not a file');
  assert.ok((await fetchFile(made.body.front_image)).ok, 'the image stays after refusals');

  // the device type's page shows its images
  const login = await fetch(`${app.url}/login/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin-password-for-tests' }) });
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const page = await (await fetch(`${app.url}/dcim/device-types/${typed.id}/`, { headers: { Cookie: cookie, Accept: 'text/html' } })).text();
  assert.match(page, new RegExp(`<img src="[^"]*/api/dcim/device-types/${typed.id}/front_image/"`));
  assert.match(page, new RegExp(`<img src="[^"]*/api/dcim/device-types/${typed.id}/rear_image/"`));
  const served = await fetch(`${app.url}/api/dcim/device-types/${typed.id}/front_image/`, { headers: { Cookie: cookie } });
  assert.is(served.status, 200, 'the page\'s session fetches the image');

  // clearing: null in JSON, a blank value in a form
  const cleared = await app.patch(`${LIST}${typed.id}/`, { front_image: null });
  assert.is(cleared.front_image, null);
  assert.match(cleared.rear_image, /rear_image/, 'the other image stays');
  assert.is((await fetchFile(made.body.front_image)).status, 404, 'the file is gone');
  const blank = await patchForm(app, `${LIST}${typed.id}/`, { rear_image: '' });
  assert.is(blank.status, 200, JSON.stringify(blank.body));
  assert.is(blank.body.rear_image, null);
  assert.equal(await ids(app, 'has_front_image=true'), []);
  assert.equal(await ids(app, 'has_rear_image=false'), [plain.id, typed.id].sort());

  // deleting the device type removes its files
  await patchForm(app, `${LIST}${typed.id}/`, { front_image: { name: 'again.png', type: 'image/png', data: PIXEL } });
  assert.is(Number((await app.running.db('core_stored_file').where('owner_id', typed.id).where('owner_type', 'like', 'dcim.devicetype.%').count('* as n'))[0].n), 1);
  assert.is((await app.api('DELETE', `${LIST}${typed.id}/`)).status, 204);
  assert.is(Number((await app.running.db('core_stored_file').where('owner_id', typed.id).where('owner_type', 'like', 'dcim.devicetype.%').count('* as n'))[0].n), 0);
});

test.run();
