/**
 * Config rendering: the fidelity suite (test/fixtures/jinja-cases.json, each case's expected output
 * rendered here by Debian's python3-jinja2, as NetBox renders it: sandboxed environment, the case's
 * environment options, files for include/import/extends), at least 90% of the cases equal; and
 * through HTTP, config templates' /render/ (JSON and text/plain), /render-config/ on devices and
 * virtual machines (the template resolved from the object, its role or its platform; config context
 * and the request body in the context), and the limits (a template that loops forever is a 400).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { renderJinja } from '../runtime/core/jinja.js';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

const fidelity = suite('config rendering matches python3-jinja2');

fidelity('at least 90% of the real-world cases render as Jinja2 renders them', async () => {
  const text = readFileSync(fixture('jinja-cases.json'), 'utf8');
  const cases = JSON.parse(text);
  const python = spawnSync('python3', [fixture('jinja-reference.py')], { input: text, encoding: 'utf8' });
  assert.is(python.status, 0, `python3-jinja2 failed: ${python.stderr}`);
  const expected: { ok?: string; error?: string }[] = JSON.parse(python.stdout);
  assert.is(expected.length, cases.cases.length);
  assert.ok(cases.cases.length >= 40);
  const differences: string[] = [];
  let equal = 0;
  for (const [i, c] of cases.cases.entries()) {
    const got: { ok?: string; error?: string } = await renderJinja({ template: c.template, files: cases.files, context: cases.context, environment: c.env }).then((ok) => ({ ok }), (e: Error) => ({ error: e.message }));
    if (expected[i].ok !== undefined && got.ok === expected[i].ok) equal++;
    else differences.push(`${c.name}: Jinja2 ${JSON.stringify(expected[i])}, here ${JSON.stringify(got)}`);
  }
  const score = equal / cases.cases.length;
  console.log(`fidelity: ${equal}/${cases.cases.length} (${(score * 100).toFixed(1)}%)${differences.length ? `\n  ${differences.join('\n  ')}` : ''}`);
  assert.ok(score >= 0.9, `only ${equal} of ${cases.cases.length} cases equal`);
});

let starting: Promise<TestApp> | undefined;
let app: TestApp;
const boot = async () => { app = await (starting ??= startApp()); };

const render = suite('config templates and render-config');
render.before(boot);
render.after(async () => { await app.stop(); });

async function template(code: string, extra: Record<string, unknown> = {}): Promise<any> {
  return app.post('/api/extras/config-templates/', { name: unique('tpl'), template_code: code, ...extra });
}

render('/render/ answers {configtemplate, content}, or the bare text when asked; environment_params apply', async () => {
  const t = await template('{% for s in servers %}\nntp {{ s }}\n{% endfor %}', { environment_params: { trim_blocks: true } });
  const json = await app.api('POST', `/api/extras/config-templates/${t.id}/render/`, { servers: ['a', 'b'] });
  expectStatus(json, 200);
  assert.equal(json.body.content, 'ntp a\nntp b\n');
  assert.equal(Object.keys(json.body.configtemplate).sort(), ['display', 'id', 'name', 'url']);
  const res = await fetch(`${app.url}/api/extras/config-templates/${t.id}/render/`, {
    method: 'POST', headers: { Authorization: 'Token a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', 'Content-Type': 'application/json', Accept: 'text/plain' }, body: JSON.stringify({ servers: ['c'] }),
  });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  assert.is(await res.text(), 'ntp c\n');
  const bad = await app.api('POST', '/api/extras/config-templates/', { name: unique('tpl'), template_code: 'x', environment_params: { loader: 'x' } });
  expectStatus(bad, 400);
  assert.ok(bad.body.environment_params);
});

render('a template that never ends, or has a syntax error, is a 400 and the service goes on', async () => {
  const forever = await template('{% for i in range(10000) %}{% for j in range(10000) %}{% for k in range(10000) %}{{ k }}{% endfor %}{% endfor %}{% endfor %}');
  const reply = await app.api('POST', `/api/extras/config-templates/${forever.id}/render/`, {});
  expectStatus(reply, 400);
  assert.match(reply.body.detail, /rendering the template/);
  const broken = await template('{% for x in %}');
  expectStatus(await app.api('POST', `/api/extras/config-templates/${broken.id}/render/`, {}), 400);
  const ok = await template('{{ 1 + 1 }}');
  assert.is((await app.api('POST', `/api/extras/config-templates/${ok.id}/render/`, {})).body.content, '2');
});

render('render-config: the device\'s template, else its role\'s, else its platform\'s; config context, body and device in the context', async () => {
  const own = await template('own {{ device.name }} {{ ntp }} {{ extra }}');
  const byRole = await template('role {{ device.role.name }}');
  const byPlatform = await template('platform {{ device.platform.slug }}');
  const site = await app.post('/api/dcim/sites/', { name: unique('site'), slug: unique('site') });
  const mfr = await app.post('/api/dcim/manufacturers/', { name: unique('m'), slug: unique('m') });
  const type = await app.post('/api/dcim/device-types/', { manufacturer: mfr.id, model: unique('t'), slug: unique('t') });
  const role = await app.post('/api/dcim/device-roles/', { name: unique('r'), slug: unique('r') });
  const platform = await app.post('/api/dcim/platforms/', { name: unique('p'), slug: unique('p'), config_template: byPlatform.id });
  const device = await app.post('/api/dcim/devices/', { name: unique('dev'), device_type: type.id, role: role.id, site: site.id, platform: platform.id, local_context_data: { ntp: '192.0.2.1' } });
  const path = `/api/dcim/devices/${device.id}/render-config/`;
  assert.is((await app.api('POST', path, {})).body.content, `platform ${platform.slug}`);
  await app.patch(`/api/dcim/device-roles/${role.id}/`, { config_template: byRole.id });
  assert.is((await app.api('POST', path, {})).body.content, `role ${role.name}`);
  await app.patch(`/api/dcim/devices/${device.id}/`, { config_template: own.id });
  assert.equal((await app.get(`/api/dcim/devices/${device.id}/`)).config_template.id, own.id);
  assert.is((await app.api('POST', path, { extra: 'x' })).body.content, `own ${device.name} 192.0.2.1 x`);
  assert.equal((await app.get(`/api/dcim/devices/?config_template_id=${own.id}`)).results.map((d: any) => d.id), [device.id]);
  // a template in use cannot be deleted
  expectStatus(await app.api('DELETE', `/api/extras/config-templates/${own.id}/`), 409);

  const vm = await app.post('/api/virtualization/virtual-machines/', { name: unique('vm'), site: site.id });
  const none = await app.api('POST', `/api/virtualization/virtual-machines/${vm.id}/render-config/`, {});
  expectStatus(none, 400);
  assert.equal(none.body, { detail: 'No config template found for this virtualmachine.' });
  const vmTemplate = await template('vm {{ virtualmachine.name }} {{ virtualmachine.site.slug }}');
  await app.patch(`/api/virtualization/virtual-machines/${vm.id}/`, { config_template: vmTemplate.id });
  assert.is((await app.api('POST', `/api/virtualization/virtual-machines/${vm.id}/render-config/`, {})).body.content, `vm ${vm.name} ${site.slug}`);
});

fidelity.run();
render.run();
