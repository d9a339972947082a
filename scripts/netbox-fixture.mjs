/**
 * Writes test/fixtures/netbox-3.7.json from NetBox's reference material, so that tests need only the
 * repository: every path of NetBox 3.7.7's OpenAPI document, each list endpoint's query parameters with
 * a type letter (i integer, n number, b boolean, t date-time, d date, u uuid, s string), and each
 * model's brief fields from NetBox 3.7.8's API tests (keyed by list path).
 *
 *   node scripts/netbox-fixture.mjs <dir holding openapi-3.7.7.yaml and src-3.7.8/>
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

const ref = process.argv[2] ?? '../shared/reference/netbox';
const doc = YAML.parse(readFileSync(join(ref, 'openapi-3.7.7.yaml'), 'utf8'));

function typeLetter(schema = {}) {
  const s = schema.type === 'array' ? schema.items ?? {} : schema;
  if (s.type === 'integer') return 'i';
  if (s.type === 'number') return 'n';
  if (s.type === 'boolean') return 'b';
  if (s.format === 'date-time') return 't';
  if (s.format === 'date') return 'd';
  if (s.format === 'uuid') return 'u';
  return 's';
}

const lists = {};
const pathOfModel = {};
for (const [path, ops] of Object.entries(doc.paths)) {
  if (path.includes('{') || !ops.get) continue;
  const params = (ops.get.parameters ?? []).filter((p) => p.in === 'query');
  if (!params.some((p) => p.name === 'limit')) continue;
  lists[path] = Object.fromEntries(params.map((p) => [p.name, typeLetter(p.schema)]));
  const ref = ops.get.responses?.['200']?.content?.['application/json']?.schema?.$ref ?? '';
  const model = /Paginated(\w+?)(?:WithConfigContext)?List$/.exec(ref)?.[1];
  if (model) pathOfModel[model] = path;
}

const brief = {};
const src = join(ref, 'src-3.7.8');
for (const app of readdirSync(src).sort()) {
  let text;
  try { text = readFileSync(join(src, app, 'tests/test_api.py'), 'utf8'); } catch { continue; }
  for (const block of text.split(/\nclass /).slice(1)) {
    const model = /\n {4}model = (\w+)/.exec(block)?.[1];
    const fields = /\n {4}brief_fields = \[([^\]]*)\]/.exec(block)?.[1];
    if (!model || fields === undefined || !pathOfModel[model]) continue;
    brief[pathOfModel[model]] = [...fields.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  }
}

const out = { source: 'NetBox 3.7.7 openapi.yaml (paths, list query parameters) and NetBox 3.7.8 */tests/test_api.py (brief_fields)', paths: Object.keys(doc.paths), lists, brief };
const lines = ['{', `"source": ${JSON.stringify(out.source)},`, `"paths": ${JSON.stringify(out.paths)},`, '"lists": {',
  Object.entries(lists).map(([p, v]) => `${JSON.stringify(p)}: ${JSON.stringify(v)}`).join(',\n'), '},', '"brief": {',
  Object.entries(brief).map(([p, v]) => `${JSON.stringify(p)}: ${JSON.stringify(v)}`).join(',\n'), '}', '}'];
writeFileSync(new URL('../test/fixtures/netbox-3.7.json', import.meta.url), lines.join('\n') + '\n');
console.log(`${out.paths.length} paths, ${Object.keys(lists).length} lists, ${Object.keys(brief).length} brief shapes`);
