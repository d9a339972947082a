/**
 * Tabs in pages, in a real Chromium: a /16 with 150 child prefixes (every other /28), a /23 with 150
 * addresses (every other one) and a VLAN group with 150 VLANs (every other VID) are listed 100 rows a
 * page, and the free space between the rows shows once, on the page of the row it precedes (after
 * the last row: on the last page): page 1 and page 2 read one after the other are the whole list
 * with every free block of the API's available-prefixes in address order, and the same as one page
 * of 250. axe on a second page.
 */
import * as assert from 'uvu/assert';
import { browserSuite, expectAccessible, login } from './browser.js';

const f: Record<string, any> = {};
const { test, s } = browserSuite('web interface: tabs in pages with their free space', async ({ app, browser, base }) => {
  f.parent = await app.post('/api/ipam/prefixes/', { prefix: '10.9.0.0/16', status: 'container' });
  await app.post('/api/ipam/prefixes/', Array.from({ length: 150 }, (_, i) => ({ prefix: `10.9.${Math.floor((i * 32) / 256)}.${(i * 32) % 256}/28` })));
  f.lan = await app.post('/api/ipam/prefixes/', { prefix: '10.8.0.0/23' });
  await app.post('/api/ipam/ip-addresses/', Array.from({ length: 150 }, (_, i) => ({ address: `10.8.${Math.floor((2 * i + 1) / 256)}.${(2 * i + 1) % 256}/23` })));
  f.group = await app.post('/api/ipam/vlan-groups/', { name: 'Paged', slug: 'paged' });
  await app.post('/api/ipam/vlans/', Array.from({ length: 150 }, (_, i) => ({ vid: 2 + 2 * i, name: `v${i}`, group: f.group.id })));
  await login(browser.page, base);
});

/** The tab's rows as text: "+<free space>" or the object's link. */
async function rowsOf(path: string): Promise<string[]> {
  const { page } = s.browser;
  await page.goto(`${s.base}${path}`);
  return page.locator('table.nl-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.classList.contains('nl-free') ? `+${tr.textContent!.trim()}` : tr.querySelector('td a')!.textContent!.trim()));
}

const toNumber = (address: string) => address.split('/')[0].split('.').reduce((n, o) => n * 256 + Number(o), 0);

test('child prefixes: two pages hold every child once and every free block once, in address order', async () => {
  const first = await rowsOf(`/ipam/prefixes/${f.parent.id}/prefixes/`);
  const second = await rowsOf(`/ipam/prefixes/${f.parent.id}/prefixes/?page=2`);
  assert.is(first.filter((r) => !r.startsWith('+')).length, 100);
  assert.is(second.filter((r) => !r.startsWith('+')).length, 50);
  // the block between the 100th and the 101st child opens page 2
  assert.is(first[first.length - 1], '10.9.12.96/28');
  assert.is(second[0], '+10.9.12.112/28 available');
  const both = [...first, ...second];
  const free = (await s.app.get(`/api/ipam/prefixes/${f.parent.id}/available-prefixes/`)).map((b: { prefix: string }) => `+${b.prefix} available`);
  assert.equal(both.filter((r) => r.startsWith('+')), free, 'the free blocks are the API\'s, each once');
  const addresses = both.map((r) => toNumber(r.replace(/^\+/, '')));
  assert.equal(addresses, [...addresses].sort((a, b) => a - b), 'in address order');
  assert.equal(await rowsOf(`/ipam/prefixes/${f.parent.id}/prefixes/?per_page=250`), both, 'one page of 250 is the two pages');
  await s.browser.page.goto(`${s.base}/ipam/prefixes/${f.parent.id}/prefixes/?page=2`);
  assert.match(await s.browser.page.locator('.card-footer').innerText(), /150 objects · page 2 of 2/);
  await expectAccessible(s.browser.page, 'the second page of a prefix\'s child prefixes');
});

test('IP addresses and VLANs: the gaps at a page\'s ends show once', async () => {
  const first = await rowsOf(`/ipam/prefixes/${f.lan.id}/ip-addresses/`);
  const second = await rowsOf(`/ipam/prefixes/${f.lan.id}/ip-addresses/?page=2`);
  assert.is(first[first.length - 1], '10.8.0.199/23');
  assert.is(second[0], '+10.8.0.200/23 available');
  assert.is(second[second.length - 1], '+10.8.1.44/23 - 10.8.1.254/23 available (211 addresses)');
  assert.equal(await rowsOf(`/ipam/prefixes/${f.lan.id}/ip-addresses/?per_page=250`), [...first, ...second]);
  assert.is([...first, ...second].filter((r) => r.startsWith('+')).length, 150);

  const vlans = [...await rowsOf(`/ipam/vlan-groups/${f.group.id}/vlans/`), ...await rowsOf(`/ipam/vlan-groups/${f.group.id}/vlans/?page=2`)];
  assert.equal(await rowsOf(`/ipam/vlan-groups/${f.group.id}/vlans/?per_page=250`), vlans);
  assert.is(vlans.filter((r) => r.startsWith('+')).length, 151);
  assert.is(vlans.filter((r) => r === '+VID 201 available').length, 1);
});

test.run();
