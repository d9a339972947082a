/**
 * The frame of every page in a real Chromium: below 992 px the menu folds behind the header's Menu
 * button, which opens it, and its links navigate (a phone of 390 px); on a desktop the menu shows with
 * a link to the rack elevations after the racks. The menu has NetBox's menus and groups; the current
 * page's menu is open and the others fold. The browsable API's JSON is readable: its colours, as
 * the browser computes them over the backgrounds beneath, have a WCAG contrast ratio of at least 4.5
 * in the light and the dark theme.
 */
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { browserSuite, expectAccessible, login, screenshot } from './browser.js';

const f: Record<string, any> = {};
const { test, s } = browserSuite('web interface: menu on a phone, browsable API contrast', async ({ app, browser, base }) => {
  f.site = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams', description: 'Amsterdam data centre' });
  await login(browser.page, base);
});

type Rgb = [number, number, number];

/**
 * In the page: the text colour of the element SEL and the colour beneath it (every background up
 * to the page's, composited), in sRGB. A string, so the test's compiler adds nothing to it.
 */
const COLOURS = `(() => {
  const canvas = document.createElement('canvas');
  canvas.width = 1;
  canvas.height = 1;
  const g = canvas.getContext('2d', { willReadFrequently: true });
  // the canvas turns any CSS colour (oklch, color-mix, light-dark) into sRGB
  function rgba(css) {
    g.clearRect(0, 0, 1, 1);
    g.fillStyle = css;
    g.fillRect(0, 0, 1, 1);
    const d = g.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  }
  function over(top, below) { return [0, 1, 2].map((i) => top[i] * top[3] + below[i] * (1 - top[3])); }
  const target = document.querySelector(SEL);
  const layers = [];
  for (let el = target; el; el = el.parentElement) layers.push(rgba(getComputedStyle(el).backgroundColor));
  let bg = [255, 255, 255];
  for (const layer of layers.reverse()) bg = over(layer, bg);
  return { fg: over(rgba(getComputedStyle(target).color), bg), bg };
})()`;

async function colours(page: Page, selector: string): Promise<{ fg: Rgb; bg: Rgb }> {
  return page.evaluate(COLOURS.replace('SEL', JSON.stringify(selector)));
}

/** WCAG 2's contrast ratio of two sRGB colours. */
function contrast(a: Rgb, b: Rgb): number {
  const luminance = (c: Rgb) => {
    const [r, g, bl] = c.map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

test('a phone: the Menu button opens the menu and a link in it navigates', async () => {
  const page = await s.browser.context.newPage();
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${s.base}/`);
    const menu = page.locator('#nl-menu');
    const toggle = page.locator('[data-menu-toggle]');
    assert.ok(await toggle.isVisible(), 'the Menu button shows');
    assert.not.ok(await menu.isVisible(), 'the menu is folded away');
    assert.is(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    assert.ok(await menu.isVisible(), 'the menu opens');
    assert.is(await toggle.getAttribute('aria-expanded'), 'true');
    const sites = menu.locator('a[href="/dcim/sites/"]');
    assert.ok(await sites.isVisible());
    await Promise.all([page.waitForURL(/\/dcim\/sites\/$/), sites.click()]);
    assert.is(await page.locator(`a[href="/dcim/sites/${f.site.id}/"]`).count(), 1, 'the site list');
    assert.not.ok(await menu.isVisible(), 'folded again on the next page');
    await toggle.click();
    await expectAccessible(page, 'the open phone menu');
    await screenshot(page, 'phone-menu');
    // closes again
    await toggle.click();
    assert.not.ok(await menu.isVisible());
  } finally {
    await page.close();
  }
});

test('a desktop: the menu shows without a button, with the rack elevations after the racks', async () => {
  const { page } = s.browser;
  await page.goto(`${s.base}/`);
  assert.ok(await page.locator('#nl-menu').isVisible());
  assert.not.ok(await page.locator('[data-menu-toggle]').isVisible());
  const links = await page.locator('#nl-menu a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  const at = links.indexOf('/dcim/rack-elevations/');
  assert.ok(at > 0, 'a link to the rack elevations');
  assert.is(links[at - 1], '/dcim/racks/', 'right after the racks');
  assert.is(await page.locator('#nl-menu a[href="/dcim/rack-elevations/"]').innerText(), 'Rack elevations');
  await Promise.all([page.waitForURL(/\/dcim\/rack-elevations\/$/), page.click('#nl-menu a[href="/dcim/rack-elevations/"]')]);
  assert.match(await page.locator('h1').innerText(), /elevations/i);
});

test('the menu is grouped as NetBox groups it, the current page\'s menu open and the others folded', async () => {
  const { page } = s.browser;
  await page.goto(`${s.base}/dcim/devices/`);
  const menus = page.locator('#nl-menu details.nl-nav-menu');
  const labels = (await menus.locator('summary').allInnerTexts()).map((t) => t.trim().toLowerCase());
  assert.equal(labels.slice(0, 4), ['organization', 'racks', 'devices', 'connections']);
  for (const label of ['ipam', 'vpn', 'virtualization', 'circuits', 'power', 'provisioning', 'customization', 'operations', 'admin']) assert.ok(labels.includes(label), `a menu ${label}: ${labels.join(', ')}`);
  const devices = menus.filter({ has: page.locator('summary', { hasText: /^Devices$/i }) });
  assert.is(await devices.getAttribute('open'), '', 'the menu of the current page is open');
  assert.is(await devices.locator('a[aria-current="page"]').getAttribute('href'), '/dcim/devices/');
  const organization = menus.filter({ has: page.locator('summary', { hasText: /^Organization$/i }) });
  assert.is(await organization.getAttribute('open'), null, 'another menu is folded');
  assert.not.ok(await organization.locator('a[href="/dcim/sites/"]').isVisible());
  await organization.locator('summary').click();
  const sites = organization.locator('ul[aria-label="Sites"] a');
  assert.equal(await sites.allInnerTexts(), ['Regions', 'Site groups', 'Sites', 'Locations']);
  await Promise.all([page.waitForURL(/\/dcim\/sites\/$/), organization.locator('a[href="/dcim/sites/"]').click()]);
  assert.is(await page.locator(`a[href="/dcim/sites/${f.site.id}/"]`).count(), 1, 'the site list');
  await expectAccessible(page, 'the grouped menu');
});

for (const theme of ['light', 'dark']) {
  test(`browsable API (${theme} theme): the JSON's contrast is at least 4.5:1`, async () => {
    const { page } = s.browser;
    await s.browser.context.addCookies([{ name: 'theme', value: theme, url: s.base }]);
    await page.goto(`${s.base}/api/dcim/sites/${f.site.id}/`);
    assert.is(await page.locator('html').getAttribute('data-bs-theme'), theme);
    const json = page.locator('[data-api-response]');
    assert.match(await json.innerText(), /Amsterdam data centre/);
    const { fg, bg } = await colours(page, '[data-api-response]');
    const ratio = contrast(fg, bg);
    assert.ok(ratio >= 4.5, `contrast ${ratio.toFixed(2)}:1 of rgb(${fg.map(Math.round)}) on rgb(${bg.map(Math.round)})`);
    await expectAccessible(page, `the browsable API in the ${theme} theme`);
  });
}

test.run();
