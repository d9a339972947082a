/**
 * Cables and paths in a real Chromium, on a fixture a network engineer would recognise: two 48-port
 * switches joined through two 24-port patch panels and their rear trunk, and two routers joined
 * through a provider's circuit. Two interfaces connected through the Connect button's cable form
 * (device, then port), the trace page of an interface, a front port, a rear port (its paths) and a
 * circuit termination drawn as SVG with every object linked, a cable page drawing both ends, an
 * interface's link peer and connection as links; results checked through the API; axe-core on each.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type TestApp } from './helpers.js';
import { expectAccessible, login, openBrowser, type Browser } from './browser.js';

const test = suite('web interface: cables and traces');
let app: TestApp;
let browser: Browser;
let base: string;
const f: Record<string, any> = {};

test.before(async () => {
  try { await setUp(); } catch (e) { console.error('SETUP', e); throw e; }
});

async function setUp() {
  app = await startApp({ RUN_WORKER: '0' });
  base = app.url;
  browser = await openBrowser();
  const maker = await app.post('/api/dcim/manufacturers/', { name: 'Juniper', slug: 'juniper' });
  const switchType = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300-48T', slug: 'ex4300-48t', u_height: 1 });
  const panelType = await app.post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Patch panel 24', slug: 'pp-24', u_height: 1 });
  const role = await app.post('/api/dcim/device-roles/', { name: 'Access switch', slug: 'access-switch' });
  const site = await app.post('/api/dcim/sites/', { name: 'Amsterdam', slug: 'ams' });
  const device = (name: string, type = switchType) => app.post('/api/dcim/devices/', { name, site: site.id, device_type: type.id, role: role.id });
  f.swA = await device('ams-sw1');
  f.swB = await device('ams-sw2');
  f.ppA = await device('ams-pp1', panelType);
  f.ppB = await device('ams-pp2', panelType);
  f.rtA = await device('ams-rt1');
  f.rtB = await device('fra-rt1');
  const ports = (dev: any) => app.post('/api/dcim/interfaces/', Array.from({ length: 48 }, (_, i) => ({ device: dev.id, name: `ge-0/0/${i}`, type: '1000base-t' })));
  f.ifA = await ports(f.swA);
  f.ifB = await ports(f.swB);
  f.rtAif = await app.post('/api/dcim/interfaces/', { device: f.rtA.id, name: 'xe-0/0/0', type: '10gbase-x-sfpp' });
  f.rtBif = await app.post('/api/dcim/interfaces/', { device: f.rtB.id, name: 'xe-0/0/0', type: '10gbase-x-sfpp' });
  for (const [pp, key] of [[f.ppA, 'A'], [f.ppB, 'B']] as const) {
    const rear = await app.post('/api/dcim/rear-ports/', { device: pp.id, name: 'Trunk', type: 'mpo', positions: 24 });
    f[`rear${key}`] = rear;
    f[`front${key}`] = await app.post('/api/dcim/front-ports/', Array.from({ length: 24 }, (_, i) => ({ device: pp.id, name: `Port ${i + 1}`, type: '8p8c', rear_port: rear.id, rear_port_position: i + 1 })));
  }
  const cable = (a: [string, number], b: [string, number], extra: object = {}) => app.post('/api/dcim/cables/', { a_terminations: [{ object_type: a[0], object_id: a[1] }], b_terminations: [{ object_type: b[0], object_id: b[1] }], ...extra });
  f.trunk = await cable(['dcim.rearport', f.rearA.id], ['dcim.rearport', f.rearB.id], { label: 'TRUNK-1', type: 'mmf-om4', color: 'aa1409', length: 40, length_unit: 'm' });
  f.patchA = await cable(['dcim.interface', f.ifA[0].id], ['dcim.frontport', f.frontA[0].id], { label: 'P-0001', type: 'cat6', color: '2196f3', length: 2, length_unit: 'm' });
  f.patchB = await cable(['dcim.frontport', f.frontB[0].id], ['dcim.interface', f.ifB[0].id], { label: 'P-0002', type: 'cat6', status: 'planned' });
  // pp2's second front port waits for the cable the form makes on the other side
  await cable(['dcim.frontport', f.frontB[1].id], ['dcim.interface', f.ifB[1].id], { label: 'P-0004', type: 'cat6' });
  const provider = await app.post('/api/circuits/providers/', { name: 'Transit Co', slug: 'transit-co' });
  const ctype = await app.post('/api/circuits/circuit-types/', { name: 'Wave', slug: 'wave' });
  const fra = await app.post('/api/dcim/sites/', { name: 'Frankfurt', slug: 'fra' });
  f.circuit = await app.post('/api/circuits/circuits/', { cid: 'WAVE-77', provider: provider.id, type: ctype.id });
  f.termA = await app.post('/api/circuits/circuit-terminations/', { circuit: f.circuit.id, term_side: 'A', site: site.id });
  f.termZ = await app.post('/api/circuits/circuit-terminations/', { circuit: f.circuit.id, term_side: 'Z', site: fra.id });
  await cable(['dcim.interface', f.rtAif.id], ['circuits.circuittermination', f.termA.id], { label: 'XC-A' });
  await cable(['circuits.circuittermination', f.termZ.id], ['dcim.interface', f.rtBif.id], { label: 'XC-Z' });
  await login(browser.page, base);
}

test.after(async () => {
  await browser?.close();
  await app?.stop();
});

test('an interface\'s trace draws every hop through both patch panels, each object a link', async () => {
  const { page } = browser;
  const reply = await page.goto(`${base}/dcim/interfaces/${f.ifA[0].id}/trace/`);
  assert.is(reply!.status(), 200);
  const svg = page.locator('.nl-trace svg');
  assert.is(await svg.count(), 1);
  for (const d of [f.swA, f.ppA, f.ppB, f.swB]) assert.ok(await svg.locator(`a[href="/dcim/devices/${d.id}/"]`).count() >= 1, d.name);
  for (const url of [`/dcim/interfaces/${f.ifA[0].id}/`, `/dcim/front-ports/${f.frontA[0].id}/`, `/dcim/rear-ports/${f.rearA.id}/`, `/dcim/rear-ports/${f.rearB.id}/`, `/dcim/front-ports/${f.frontB[0].id}/`, `/dcim/interfaces/${f.ifB[0].id}/`]) {
    assert.is(await svg.locator(`a[href="${url}"]`).count(), 1, url);
  }
  for (const c of [f.patchA, f.trunk, f.patchB]) assert.is(await svg.locator(`a[href="/dcim/cables/${c.id}/"]`).count(), 1, c.label);
  const text = await svg.textContent();
  for (const t of ['TRUNK-1', 'P-0001', 'P-0002', '40 Meters', 'Planned', 'ams-sw1', 'ams-sw2', 'ge-0/0/0', 'Port 1']) assert.ok(text!.includes(t), `${t} in the drawing`);
  assert.is(await svg.locator('line[stroke="#aa1409"]').count(), 1, 'the trunk in its colour');
  assert.is(await svg.locator('line[stroke-dasharray]').count(), 1, 'the planned cable dashed');
  const hops = page.locator('table[aria-label="Hops"] tbody tr');
  assert.is(await hops.count(), 3);
  assert.match(await hops.last().innerText(), /ams-pp2 › Port 1\s+P-0002\s+ams-sw2 › ge-0\/0\/0/);
  await Promise.all([page.waitForURL(new RegExp(`/dcim/rear-ports/${f.rearB.id}/$`)), svg.locator(`a[href="/dcim/rear-ports/${f.rearB.id}/"]`).click()]);
  await page.goto(`${base}/dcim/interfaces/${f.ifA[0].id}/trace/`);
  await expectAccessible(page, 'a trace page');
  const png = await page.screenshot({ fullPage: true });
  assert.ok(png.length > 10_000, 'a rendered page, not a blank one');
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(join(import.meta.dirname, '../docs/screenshots'), { recursive: true });
    writeFileSync(join(import.meta.dirname, '../docs/screenshots/trace.png'), png);
  }
});

test('Connect on a switch port opens the cable form; the B side is chosen device, then port; the trace follows', async () => {
  const { page } = browser;
  const port = f.ifA[1];
  await page.goto(`${base}/dcim/devices/${f.swA.id}/interfaces/`);
  const row = page.locator('table[aria-label="Interfaces"] tbody tr', { has: page.locator(`a[href="/dcim/interfaces/${port.id}/"]`) });
  assert.is(await page.locator('table[aria-label="Interfaces"] thead th:has-text("Cable actions")').count(), 1);
  assert.is(await page.locator('table[aria-label="Interfaces"] tbody tr').first().locator('a:has-text("Connect")').count(), 0, 'a cabled port has no Connect');
  await Promise.all([page.waitForURL(/\/dcim\/cables\/add\/\?/), row.locator('a:has-text("Connect")').click()]);
  const url = new URL(page.url());
  assert.is(url.searchParams.get('a_terminations_type'), 'dcim.interface');
  assert.is(url.searchParams.get('a_terminations'), String(port.id));
  const aSide = page.locator('table[aria-label="A side ports"]');
  assert.match(await aSide.innerText(), /ams-sw1\s+ge-0\/0\/1/);
  assert.is(await aSide.locator(`a[href="/dcim/devices/${f.swA.id}/"]`).count(), 1);
  await page.selectOption('#field-b_terminations_type', 'dcim.frontport');
  await page.waitForSelector('label[for=field-b_terminations]:text-is("Front port")');
  assert.is(await page.locator('#field-b_terminations option').count(), 0, 'no ports before a device');
  await page.selectOption('#field-termination_b_device', String(f.ppA.id));
  await page.waitForSelector('#field-b_terminations option', { state: 'attached' });
  assert.is(await page.locator('#field-b_terminations option').count(), 24, 'the patch panel\'s front ports, and only them');
  assert.ok(await page.locator(`#field-b_terminations option[value="${f.frontA[0].id}"]`).isDisabled(), 'a port with a cable cannot be chosen');
  await page.selectOption('#field-b_terminations', String(f.frontA[1].id));
  await page.fill('#field-label', 'P-0003');
  await page.selectOption('#field-type', 'cat6a');
  await page.fill('#field-color', '4caf50');
  await page.fill('#field-length', '3');
  await page.selectOption('#field-length_unit', 'm');
  await expectAccessible(page, 'the cable form');
  await Promise.all([page.waitForURL(new RegExp(`/dcim/devices/${f.swA.id}/interfaces/$`)), page.click('button:has-text("Save")')]);
  const [made] = (await app.get(`/api/dcim/cables/?label=P-0003`)).results;
  assert.equal(made.a_terminations.map((t: any) => [t.object_type, t.object_id]), [['dcim.interface', port.id]]);
  assert.equal(made.b_terminations.map((t: any) => [t.object_type, t.object_id]), [['dcim.frontport', f.frontA[1].id]]);
  assert.is(made.length, 3);
  const trace = await app.get(`/api/dcim/interfaces/${port.id}/trace/`);
  assert.is(trace.length, 3);
  assert.is(trace[2][2][0].id, f.ifB[1].id, 'the path reaches ams-sw2 ge-0/0/1 through both panels');
  // the port's row now offers its trace, not Connect
  await Promise.all([page.waitForURL(new RegExp(`/dcim/interfaces/${port.id}/trace/$`)), row.locator('a:has-text("Trace")').click()]);
  assert.match(await page.locator('.nl-trace svg').textContent() ?? '', /P-0003.*TRUNK-1.*P-0004/s);
  assert.is(await page.locator(`.nl-trace svg a[href="/dcim/interfaces/${f.ifB[1].id}/"]`).count(), 1);
});

test('a cable form that the API refuses shows why and creates nothing', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/cables/add/?a_terminations_type=dcim.interface&a_terminations=${f.ifA[2].id}`);
  const before = (await app.get('/api/dcim/cables/?limit=1')).count;
  await page.click('button:has-text("Save")');
  await page.waitForSelector('.nl-field-error, .alert-danger');
  assert.match(await page.locator('main').innerText(), /b_terminations|B side|required|termination/i);
  assert.is((await app.get('/api/dcim/cables/?limit=1')).count, before);
});

test('a rear port lists the paths through it and draws the chosen one; a circuit termination draws the circuit', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/rear-ports/${f.rearA.id}/trace/`);
  const paths = page.locator('table[aria-label="Paths"] tbody tr');
  assert.ok(await paths.count() >= 2, 'each front port\'s path through the trunk');
  const fromB = paths.filter({ has: page.locator('td:nth-child(2)', { hasText: 'ams-sw2 › ge-0/0/0' }) });
  assert.is(await fromB.count(), 1);
  await Promise.all([page.waitForURL(/\?path=\d+$/), fromB.locator('a').click()]);
  assert.is(await page.locator('table[aria-label="Paths"] a[aria-current]').innerText(), await fromB.locator('a').innerText());
  const drawn = page.locator('table[aria-label="Hops"] tbody tr');
  assert.match(await drawn.first().innerText(), /ams-sw2 › ge-0\/0\/0\s+P-0002\s+ams-pp2 › Port 1/, 'drawn from that path\'s origin');
  assert.is(await page.locator(`.nl-trace svg a[href="/dcim/interfaces/${f.ifA[0].id}/"]`).count(), 1);
  await expectAccessible(page, 'a rear port\'s paths');
  await page.goto(`${base}/circuits/circuit-terminations/${f.termA.id}/trace/`);
  const svg = page.locator('.nl-trace svg');
  for (const href of [`/dcim/devices/${f.rtA.id}/`, `/dcim/interfaces/${f.rtAif.id}/`, `/circuits/circuits/${f.circuit.id}/`, `/circuits/circuit-terminations/${f.termA.id}/`, `/circuits/circuit-terminations/${f.termZ.id}/`, `/dcim/devices/${f.rtB.id}/`, `/dcim/interfaces/${f.rtBif.id}/`]) {
    assert.ok(await svg.locator(`a[href="${href}"]`).count() >= 1, href);
  }
  assert.match(await svg.textContent() ?? '', /WAVE-77/);
  await expectAccessible(page, 'a circuit termination\'s trace');
  assert.is((await page.goto(`${base}/dcim/interfaces/999999/trace/`))!.status(), 404);
});

test('a cable page draws both ends; an interface shows its link peer and connection as device and port links', async () => {
  const { page } = browser;
  await page.goto(`${base}/dcim/cables/${f.trunk.id}/`);
  const drawing = page.locator('.nl-trace svg');
  assert.is(await drawing.count(), 1);
  for (const href of [`/dcim/devices/${f.ppA.id}/`, `/dcim/rear-ports/${f.rearA.id}/`, `/dcim/devices/${f.ppB.id}/`, `/dcim/rear-ports/${f.rearB.id}/`]) assert.ok(await drawing.locator(`a[href="${href}"]`).count() >= 1, href);
  assert.match(await drawing.textContent() ?? '', /TRUNK-1.*40 Meters/s);
  assert.match(await page.locator('table[aria-label="Cable ends"]').innerText(), /A side\s+ams-pp1\s+Trunk\s+B side\s+ams-pp2\s+Trunk/);
  assert.not.match(await page.locator('main').innerText(), /object_type/, 'no raw JSON terminations');
  await expectAccessible(page, 'a cable page');
  await page.goto(`${base}/dcim/interfaces/${f.ifA[0].id}/`);
  const field = (name: string) => page.locator('table[aria-label=Fields] tr', { has: page.locator(`th:text-is("${name}")`) }).locator('td');
  assert.is(await field('Link peers').locator(`a[href="/dcim/devices/${f.ppA.id}/"]`).count(), 1);
  assert.is(await field('Link peers').locator(`a[href="/dcim/front-ports/${f.frontA[0].id}/"]`).innerText(), 'Port 1');
  assert.is(await field('Connected endpoints').locator(`a[href="/dcim/devices/${f.swB.id}/"]`).count(), 1);
  assert.is(await field('Connected endpoints').locator(`a[href="/dcim/interfaces/${f.ifB[0].id}/"]`).innerText(), 'ge-0/0/0');
  await Promise.all([page.waitForURL(/\/trace\/$/), page.click('a.btn:has-text("Trace")')]);
  await page.goto(`${base}/dcim/interfaces/${f.ifA[5].id}/`);
  assert.is(await page.locator('a.btn:has-text("Connect")').getAttribute('href'), `/dcim/cables/add/?a_terminations_type=dcim.interface&a_terminations=${f.ifA[5].id}&return_url=%2Fdcim%2Finterfaces%2F${f.ifA[5].id}%2F`);
});

test.run();
