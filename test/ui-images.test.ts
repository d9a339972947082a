/**
 * Image fields on the web forms, in a real Chromium: a device type's edit form is multipart with a
 * file input per image field; a PNG chosen there is stored as the API stores it (the image route
 * serves the same bytes with their type), saving again without a file keeps it, "Remove image"
 * clears it. A file that is not an image, or is over IMAGE_ATTACHMENT_MAX_SIZE, is refused next to
 * its field as the API words it; a multipart post without the CSRF token is refused. A site's Images
 * tab: "Attach an image" opens the image attachment form with the site filled in and a file input;
 * the attachment is checked through the API. axe on the forms.
 */
import * as assert from 'uvu/assert';
import { ADMIN_TOKEN } from './helpers.js';
import { browserSuite, expectAccessible, login } from './browser.js';

const MAX = 4096;
/** A PNG of 2x1 pixels. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==', 'base64');

const f: Record<string, any> = {};
const { test, s } = browserSuite('web interface: image fields', async ({ app, browser, base }) => {
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Cisco', slug: 'cisco' });
  f.type = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'C9300-48P', slug: 'c9300-48p' });
  await login(browser.page, base);
}, { RUN_WORKER: '0', IMAGE_ATTACHMENT_MAX_SIZE: String(MAX) });

const edit = () => `${s.base}/dcim/device-types/${f.type.id}/edit/`;
const fetchFile = (url: string) => fetch(url, { headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
const save = () => Promise.all([s.browser.page.waitForURL(`${s.base}/dcim/device-types/${f.type.id}/`), s.browser.page.click('button:has-text("Save")')]);

test('a PNG chosen on the edit form is served by the image route; saving without a file keeps it', async () => {
  const { page } = s.browser;
  await page.goto(edit());
  assert.is(await page.locator('form.card').getAttribute('enctype'), 'multipart/form-data');
  assert.is(await page.locator('#field-front_image').getAttribute('type'), 'file');
  await expectAccessible(page, 'an edit form with file inputs');
  await page.setInputFiles('#field-front_image', { name: 'front.png', mimeType: 'image/png', buffer: PIXEL });
  await save();
  const typed = await s.app.get(`/api/dcim/device-types/${f.type.id}/`);
  assert.match(typed.front_image, new RegExp(`/api/dcim/device-types/${f.type.id}/front_image/$`));
  assert.is(typed.rear_image, null, 'the other image is untouched');
  const file = await fetchFile(typed.front_image);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), 'image/png');
  assert.equal(Buffer.from(await file.arrayBuffer()), PIXEL);
  assert.is(await page.locator(`img[src="${typed.front_image}"]`).count(), 1, 'the page shows it');

  await page.goto(edit());
  await page.fill('#field-description', 'with a photo');
  await save();
  const again = await s.app.get(`/api/dcim/device-types/${f.type.id}/`);
  assert.is(again.description, 'with a photo');
  assert.is(again.front_image, typed.front_image, 'no file chosen: the image stays');
});

test("a site's Images tab: Attach an image fills in the site and takes a file", async () => {
  const { page } = s.browser;
  const site = await s.app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  await page.goto(`${s.base}/dcim/sites/${site.id}/`);
  const tab = page.locator(`.nl-tabs a[href="/dcim/sites/${site.id}/images/"]`);
  assert.match(await tab.innerText(), /Images\s*0/);
  await Promise.all([page.waitForURL(/\/images\/$/), tab.click()]);
  await Promise.all([page.waitForURL(/\/extras\/image-attachments\/add\//), page.getByRole('link', { name: 'Attach an image' }).click()]);
  assert.is(await page.locator('#field-object_type').inputValue(), 'dcim.site');
  assert.is(await page.locator('#field-object_id').inputValue(), String(site.id));
  assert.is(await page.locator('form.card').getAttribute('enctype'), 'multipart/form-data');
  await expectAccessible(page, 'the image attachment form');
  await page.fill('#field-name', 'Rack row A');
  await page.setInputFiles('#field-image', { name: 'row.png', mimeType: 'image/png', buffer: PIXEL });
  await Promise.all([page.waitForURL(`${s.base}/dcim/sites/${site.id}/images/`), page.click('button:has-text("Save")')]);
  const { results, count } = await s.app.get(`/api/extras/image-attachments/?content_type=dcim.site&object_id=${site.id}`);
  assert.is(count, 1);
  assert.is(results[0].name, 'Rack row A');
  assert.is(results[0].image_width, 2);
  assert.equal(Buffer.from(await (await fetchFile(results[0].image)).arrayBuffer()), PIXEL);
  assert.match(await page.locator('main table tbody').innerText(), /Rack row A/);
});

test('a file that is not an image, or too large, is refused next to its field', async () => {
  const { page } = s.browser;
  await page.goto(edit());
  await page.setInputFiles('#field-rear_image', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') });
  await page.click('button:has-text("Save")');
  assert.match(await page.locator('#field-rear_image-error').innerText(), /not a PNG, JPEG, GIF or WebP image/);
  await page.setInputFiles('#field-rear_image', { name: 'big.png', mimeType: 'image/png', buffer: Buffer.concat([PIXEL, Buffer.alloc(MAX)]) });
  await page.click('button:has-text("Save")');
  assert.match(await page.locator('#field-rear_image-error').innerText(), /IMAGE_ATTACHMENT_MAX_SIZE/);
  assert.is((await s.app.get(`/api/dcim/device-types/${f.type.id}/`)).rear_image, null);
  // the multipart form needs the session's CSRF token as the other forms do
  const forged = await page.request.post(edit(), { multipart: { rear_image: { name: 'rear.png', mimeType: 'image/png', buffer: PIXEL } } });
  assert.is(forged.status(), 403);
  assert.is((await s.app.get(`/api/dcim/device-types/${f.type.id}/`)).rear_image, null);
});

test('"Remove image" clears the image, and its route no longer serves it', async () => {
  const { page } = s.browser;
  const before = (await s.app.get(`/api/dcim/device-types/${f.type.id}/`)).front_image;
  await page.goto(edit());
  await page.check('#field-front_image-clear');
  await save();
  assert.is((await s.app.get(`/api/dcim/device-types/${f.type.id}/`)).front_image, null);
  assert.is((await fetchFile(before)).status, 404);
  await page.goto(edit());
  assert.is(await page.locator('#field-front_image-clear').count(), 0, 'nothing to remove');
});

test.run();
