/**
 * Bookmarks in a real Chromium: an object's page has a Bookmark button that adds the user's bookmark
 * (checked through the API), then shows "Remove bookmark", which removes it; the home page lists the
 * bookmarked object. The toggle is a POST that needs the session's CSRF token.
 */
import * as assert from 'uvu/assert';
import { browserSuite, expectAccessible, login } from './browser.js';

const f: Record<string, any> = {};
const { test, s } = browserSuite('web interface: bookmarks', async ({ app, browser, base }) => {
  f.site = await app.post('/api/dcim/sites/', { name: 'Rotterdam', slug: 'rtm' });
  await login(browser.page, base);
});

const marks = () => s.app.get(`/api/extras/bookmarks/?object_type=dcim.site&object_id=${f.site.id}`);

test('the Bookmark button adds the bookmark, the home page lists it, the button removes it', async () => {
  const { page } = s.browser;
  await page.goto(`${s.base}/dcim/sites/${f.site.id}/`);
  const button = page.locator('[data-bookmark]');
  assert.is((await button.textContent())?.trim(), 'Bookmark');
  assert.is((await marks()).count, 0);
  await Promise.all([page.waitForURL(`${s.base}/dcim/sites/${f.site.id}/`), button.click()]);
  await page.waitForSelector('[data-bookmark=on]');
  assert.is((await button.textContent())?.trim(), 'Remove bookmark');
  const after = await marks();
  assert.is(after.count, 1);
  assert.is(after.results[0].user.username, 'admin');
  await expectAccessible(page, 'a bookmarked object page');

  await page.goto(`${s.base}/`);
  const listed = page.locator(`a[href="/dcim/sites/${f.site.id}/"]`, { hasText: 'Rotterdam' });
  assert.ok(await listed.count() >= 1, 'the home page lists the bookmark');

  await page.goto(`${s.base}/dcim/sites/${f.site.id}/`);
  await Promise.all([page.waitForURL(`${s.base}/dcim/sites/${f.site.id}/`), page.locator('[data-bookmark=on]').click()]);
  await page.waitForSelector('[data-bookmark=off]');
  assert.is((await marks()).count, 0);
});

test('the toggle refuses a POST without the CSRF token', async () => {
  const { page } = s.browser;
  await page.goto(`${s.base}/dcim/sites/${f.site.id}/`);
  const status = await page.evaluate(async (url) => (await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' })).status, `/dcim/sites/${f.site.id}/bookmark/`);
  assert.is(status, 403);
  assert.is((await marks()).count, 0);
});

test.run();
