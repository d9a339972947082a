/**
 * The OpenAPI document: valid OpenAPI 3.1 (checked by an independent validator), deterministic and
 * current with schema/, every filter and lookup listed as a parameter, every schema compiling, and
 * the response check test/helpers.ts applies to the whole suite really rejecting a lie.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { loadSchema } from '../generator/load.js';
import { resolveSchema } from '../generator/resolve.js';
import { buildOpenApi, LOOKUPS } from '../generator/openapi.js';
import { entriesInVersion } from '../generator/versions.js';
import { modelList } from '../runtime/data/registry.js';
import { filtersIn } from '../runtime/core/versions.js';
import { apiVersions } from '../generated/versions.js';
import { checkResponse, loadChecker } from './openapi-check.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const text = readFileSync(join(root, 'generated/openapi.json'), 'utf8');
const document = JSON.parse(text);

const test = suite('OpenAPI document');
// the models the default version serves, in its forms (generated/openapi.json describes those)
const served = entriesInVersion(modelList, apiVersions.default);

test('is a valid OpenAPI 3.1 document', async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));
  assert.is(validator.version, '3.1');
  // The validator is not a rubber stamp.
  const broken = structuredClone(document);
  delete broken.info;
  broken.paths['/api/dcim/sites/'].get.responses = 'none';
  assert.not.ok((await new Validator().validate(broken)).valid);
});

test('is deterministic and matches schema/ (run `npm run generate` if not)', () => {
  const build = () => {
    const schema = loadSchema(join(root, 'schema'), join(root, 'generator/schema-format.json'), join(root, 'runtime/hooks'));
    const { entries, choiceSets, versions } = resolveSchema(schema);
    return JSON.stringify(buildOpenApi(entriesInVersion(entries, versions.default), choiceSets, versions.versions.find((v) => v.version === versions.default)!), null, 2) + '\n';
  };
  const first = build();
  assert.is(build(), first, 'two builds are identical');
  assert.ok(first === text, 'generated/openapi.json is current');
});

test('every model has its list and detail paths, keyed /api/<app>/<endpoint>/', () => {
  for (const entry of served) {
    const { list } = entry.routes;
    const detail = `${list}{id}/`;
    assert.ok(document.paths[list]?.get, `${list} get`);
    assert.ok(document.paths[detail]?.get, `${detail} get`);
    const methods = Object.keys(document.paths[list]).sort();
    assert.equal(methods, entry.definition.readOnly ? ['get'] : ['delete', 'get', 'patch', 'post', 'put'], list);
  }
  // What nb_inventory (NetBox >= 3.5) reads.
  const names = document.paths['/api/dcim/devices/'].get.parameters.map((p: any) => p.name);
  assert.ok(names.includes('site_id') && names.includes('role') && names.includes('status'));
  assert.ok(document.paths['/api/status/'].get);
  assert.ok(document.paths['/api/schema/'].get);
});

test('every filter of the default version is a parameter, with each lookup the runtime accepts for it', () => {
  for (const entry of served) {
    const params = new Set(document.paths[entry.routes.list].get.parameters.map((p: any) => p.name));
    for (const [name, filter] of Object.entries(filtersIn(entry, apiVersions.default))) {
      assert.ok(params.has(name), `${entry.routes.list} ${name}`);
      const family = filter.kind === 'field' || filter.kind === 'path' ? (filter.kind === 'path' && filter.boolean ? 'boolean' : filter.family)
        : filter.kind === 'ip' && filter.op === 'mask_length' ? 'number'
          : filter.kind === 'tag' || (filter.kind === 'reverse' && !filter.boolean) ? 'exact' : 'boolean';
      for (const lookup of LOOKUPS[family]) assert.ok(params.has(`${name}__${lookup}`), `${entry.routes.list} ${name}__${lookup}`);
    }
    for (const name of ['limit', 'offset', 'ordering', 'brief']) assert.ok(params.has(name), `${entry.routes.list} ${name}`);
  }
});

test('representations: every field listed, required unless it may be left out, no extra keys', () => {
  for (const entry of served) {
    const d = entry.definition;
    const schema = document.components.schemas[d.name];
    const expected = entry.serializer.full.flatMap((n) => (d.fields[n]?.type === 'generic_fk' ? [d.fields[n].typeKey!, `${n}_id`, d.fields[n].nestedKey ?? n] : [n]));
    assert.equal(Object.keys(schema.properties).sort(), [...expected].sort(), d.name);
    assert.equal([...schema.required].sort(), expected.filter((n) => n !== 'config_context').sort(), d.name);
    assert.is(schema.additionalProperties, false, d.name);
    assert.equal(Object.keys(document.components.schemas[`Brief${d.name}`].properties).sort(), [...entry.serializer.brief].sort(), `Brief${d.name}`);
    assert.equal(Object.keys(document.components.schemas[`Nested${d.name}`].properties).sort(), [...entry.serializer.nested].sort(), `Nested${d.name}`);
    for (const f of Object.values(d.fields)) {
      const prop = schema.properties[f.name];
      if (f.nullable && f.type !== 'json' && f.type !== 'generic_fk' && prop) {
        const allowsNull = JSON.stringify(prop).includes('"null"');
        assert.ok(allowsNull, `${d.name}.${f.name} is nullable`);
      }
    }
  }
});

test('every schema and response compiles, and every $ref resolves', () => {
  const checker = loadChecker(document);
  let count = 0;
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      for (const status of Object.keys(op.responses)) {
        const fn = checker.validator({ template: path, responses: op.responses }, method.toUpperCase(), status);
        assert.ok(fn !== 'undocumented');
        count++;
      }
    }
  }
  assert.ok(count > modelList.length * 10);
  const refs = [...text.matchAll(/"\$ref": "#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
  for (const name of new Set(refs)) assert.ok(document.components.schemas[name], `#/components/schemas/${name}`);
});

test('the response check rejects a body or a status the document does not describe', () => {
  const site = { id: 1, url: 'http://h/api/dcim/sites/1/', display: 'S', name: 'S', slug: 's' };
  assert.throws(() => checkResponse('GET', '/api/dcim/sites/1/', 200, 'application/json', { ...site, surprise: true }), /OpenAPI: GET \/api\/dcim\/sites\/1\/ .*200/);
  assert.throws(() => checkResponse('GET', '/api/dcim/sites/1/', 200, 'application/json', { id: 'one' }), /does not match/);
  assert.throws(() => checkResponse('GET', '/api/dcim/sites/?limit=1', 418, 'application/json', {}), /does not list/);
  // The brief form is a documented answer; so are error bodies.
  checkResponse('GET', '/api/dcim/sites/1/?brief=1', 200, 'application/json', site);
  checkResponse('GET', '/api/dcim/sites/1/', 404, 'application/json', { detail: 'Not found.' });
  checkResponse('POST', '/api/dcim/sites/', 400, 'application/json', { name: ['This field is required.'] });
  checkResponse('POST', '/api/dcim/sites/', 400, 'application/json', [{}, { name: ['This field is required.'] }]);
  // Undescribed paths, redirects and non-JSON bodies are skipped.
  checkResponse('GET', '/api/', 200, 'application/json', { anything: 1 });
  checkResponse('GET', '/api/dcim/sites', 302, 'text/plain', 'Redirecting');
  checkResponse('GET', '/api/docs/', 200, 'text/html', '<html>');
});

test.run();
