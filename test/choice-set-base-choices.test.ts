/**
 * Custom field choice sets built on a base list (NetBox 3.7's base_choices): create and validate,
 * the set's choices (/choices/ with q, count, order), the base_choices filters, custom field values
 * checked against the base list, and the same field through the 4.6 API.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('custom field choice sets: base_choices');
let app: TestApp;
const SETS = '/api/extras/custom-field-choice-sets/';

test.before(async () => { app = await startApp(); });
test.after(() => app.stop());

let countries: any;
let airports: any;

test('a set may take a base list alone; its choices count the whole list', async () => {
  const reply = await app.api('POST', SETS, { name: 'countries', base_choices: 'ISO_3166' });
  expectStatus(reply, 201);
  countries = reply.body;
  assert.equal(countries.base_choices, { value: 'ISO_3166', label: 'ISO 3166 (Country codes)' });
  assert.is(countries.extra_choices, null);
  assert.ok(countries.choices_count >= 249 && countries.choices_count < 260, `ISO 3166-1 has about 249 countries, got ${countries.choices_count}`);
  const iata = await app.api('POST', SETS, { name: 'airports', base_choices: 'IATA', extra_choices: [['ZZZ', 'ZZZ (Our own strip)']] });
  expectStatus(iata, 201);
  airports = iata.body;
  assert.ok(airports.choices_count > 5000, `thousands of airport codes, got ${airports.choices_count}`);
});

test('a set with neither base nor extra choices, or an unknown base list, is a 400 naming the field', async () => {
  for (const body of [{ name: 'empty1' }, { name: 'empty2', extra_choices: [] }, { name: 'empty3', base_choices: '', extra_choices: null }, { name: 'empty4', base_choices: null }]) {
    const reply = await app.api('POST', SETS, body);
    expectStatus(reply, 400, JSON.stringify(body));
    assert.equal(reply.body.extra_choices, ['Must define base or extra choices.'], JSON.stringify(reply.body));
  }
  const bad = await app.api('POST', SETS, { name: 'bad-base', base_choices: 'ZIP_CODES' });
  expectStatus(bad, 400);
  assert.ok(bad.body.base_choices, JSON.stringify(bad.body));
  // no maintained npm package ships the UN/LOCODE list: the server says so rather than offering an empty list
  const locode = await app.api('POST', SETS, { name: 'locations', base_choices: 'UN_LOCODE' });
  expectStatus(locode, 400);
  assert.match(locode.body.base_choices[0], /not available/);
  // clearing the base list of a set without extra choices leaves it with none
  const cleared = await app.api('PATCH', `${SETS}${countries.id}/`, { base_choices: null });
  expectStatus(cleared, 400);
  assert.equal(cleared.body.extra_choices, ['Must define base or extra choices.']);
});

test('/choices/ walks the base list then the extra choices, narrowed by q and paged', async () => {
  const page = await app.api('GET', `${SETS}${countries.id}/choices/?limit=3`);
  expectStatus(page, 200);
  assert.is(page.body.count, countries.choices_count);
  assert.equal(page.body.results[0], { id: 'AD', display: 'AD (Andorra)' });
  assert.match(page.body.next, /offset=3/);
  const q = await app.api('GET', `${SETS}${countries.id}/choices/?q=germany`);
  assert.equal(q.body.results, [{ id: 'DE', display: 'DE (Germany)' }]);
  const code = await app.api('GET', `${SETS}${airports.id}/choices/?q=jfk`);
  assert.is(code.body.count, 1);
  assert.is(code.body.results[0].id, 'JFK');
  assert.match(code.body.results[0].display, /^JFK \(.*Kennedy.*\)$/);
  const last = await app.api('GET', `${SETS}${airports.id}/choices/?limit=1&offset=${airports.choices_count - 1}`);
  assert.equal(last.body.results, [{ id: 'ZZZ', display: 'ZZZ (Our own strip)' }], 'extra choices follow the base list');
  await app.api('PATCH', `${SETS}${airports.id}/`, { extra_choices: [['AAA0', 'first'], ['ZZZ', 'ZZZ (Our own strip)']], order_alphabetically: true });
  const sorted = await app.api('GET', `${SETS}${airports.id}/choices/?limit=2`);
  assert.is(sorted.body.results[1].id, 'AAA0', 'ordered sets merge the extra choices in by value');
});

test('filters: base_choices, base_choices__n, and choice finds values of a base list', async () => {
  const plain = await app.api('POST', SETS, { name: 'plain', extra_choices: [['gold', 'Gold']] });
  expectStatus(plain, 201);
  const names = async (q: string) => { const r = await app.api('GET', `${SETS}?${q}`); expectStatus(r, 200, q); return r.body.results.map((s: any) => s.name).sort(); };
  assert.equal(await names('base_choices=ISO_3166'), ['countries']);
  assert.equal(await names('base_choices=IATA&base_choices=ISO_3166'), ['airports', 'countries']);
  assert.equal(await names('base_choices__n=IATA'), ['countries', 'plain']);
  assert.equal(await names('choice=FR'), ['countries']);
  assert.equal(await names('choice=gold&choice=JFK'), ['airports', 'plain']);
});

test('custom field values are checked against the base list; a wrong one is a 400 naming the field', async () => {
  for (const [name, type] of [['country_cf', 'select'], ['countries_cf', 'multiselect']]) {
    const f = await app.api('POST', '/api/extras/custom-fields/', { name, type, content_types: ['dcim.site'], choice_set: countries.id });
    expectStatus(f, 201);
  }
  const ok = await app.api('POST', '/api/dcim/sites/', { name: 'cf-ok', slug: 'cf-ok', custom_fields: { country_cf: 'FR', countries_cf: ['DE', 'US'] } });
  expectStatus(ok, 201);
  assert.equal(ok.body.custom_fields, { country_cf: 'FR', countries_cf: ['DE', 'US'] });
  for (const [cf, value] of [['country_cf', 'XX'], ['countries_cf', ['DE', 'QQ']]] as const) {
    const bad = await app.api('POST', '/api/dcim/sites/', { name: `cf-${cf}`, slug: `cf-${cf}`, custom_fields: { [cf]: value } });
    expectStatus(bad, 400);
    const message = bad.body.custom_fields.find((m: string) => m.includes(`'${cf}'`));
    assert.ok(message, JSON.stringify(bad.body));
    assert.ok(message.length < 1000, 'a long base list is not spelled out in full');
  }
  // the field follows its set: switching the base list changes what is valid
  await app.api('PATCH', `${SETS}${countries.id}/`, { base_choices: 'IATA' });
  expectStatus(await app.api('POST', '/api/dcim/sites/', { name: 'cf-jfk', slug: 'cf-jfk', custom_fields: { country_cf: 'JFK' } }), 201);
  await app.api('PATCH', `${SETS}${countries.id}/`, { base_choices: 'ISO_3166' });
});

test('the 4.6 API reads and writes base_choices, null for none', async () => {
  const created = await app.api('POST', `/v4.6${SETS}`, { name: 'v46', base_choices: null, extra_choices: [['a', 'A']] });
  expectStatus(created, 201);
  assert.is(created.body.base_choices, null);
  const iata = await app.api('PATCH', `/v4.6${SETS}${created.body.id}/`, { base_choices: 'IATA' });
  expectStatus(iata, 200);
  assert.equal(iata.body.base_choices, { value: 'IATA', label: 'IATA (Airport codes)' });
  const filtered = await app.api('GET', `/v4.6${SETS}?base_choices=IATA`);
  assert.equal(filtered.body.results.map((s: any) => s.name).sort(), ['airports', 'v46']);
  const none = await app.api('PATCH', `/v4.6${SETS}${created.body.id}/`, { base_choices: null });
  assert.is(none.body.base_choices, null);
});

test.run();
