/**
 * The conformance suite, driven by the schema: for every model, through HTTP, list, retrieve, brief,
 * create, bulk create, update, partial update, bulk update, every lookup family of its filters,
 * pagination links, relations written by attributes, delete and bulk delete.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { choiceSet, model, modelList } from '../runtime/data/registry.js';
import type { ModelEntry } from '../runtime/core/types.js';
import { asServed, detailPath, expectStatus, listPath, startApp, type TestApp } from './helpers.js';
import { createObject, createRelated, editableText, inputFor, requiredText, seedRow } from './factory.js';

// Started once for the whole file; every suite waits for it (uvu loads test files as CommonJS, so no top-level await).
// No webhook worker: seeded deliveries must stay as they were written.
const starting = startApp({ RUN_WORKER: '0' });
let app: TestApp;
const ids = (reply: { body: { results: { id: number }[] } }) => reply.body.results.map((r) => r.id);

// A model is tested in the version a client reaches it in: the default one, else the first that serves it (4.x-only models under /v4.6).
function conformance(served: ModelEntry, last: boolean) {
  const entry = asServed(served);
  const d = entry.definition;
  const list = listPath(entry);
  const test = suite(`${d.name} ${list}`);
  const created: any[] = [];
  test.before(async () => { app = await starting; });

  test('POST creates one object (201) with the full representation', async () => {
    const input = await inputFor(app, entry);
    const reply = await app.api('POST', list, input);
    expectStatus(reply, 201);
    const body = reply.body;
    assert.ok(Number.isInteger(body.id) && body.id > 0);
    assert.is(body.url, `${app.url}${list}${body.id}/`);
    assert.type(body.display, 'string');
    const expected = entry.serializer.full.flatMap((n) => (d.fields[n]?.type === 'generic_fk' ? [d.fields[n].typeKey!, `${n}_id`, d.fields[n].nestedKey ?? n] : [n]));
    assert.equal(Object.keys(body).sort(), expected.sort());
    for (const [name, value] of Object.entries(input)) {
      const f = d.fields[name];
      // a computed field written with an example (a cable's ends) reads back in another shape
      if (!f || f.writeOnly || f.type === 'computed') continue;
      const shown = body[name];
      if (f.type === 'fk') assert.is(shown.id, value, name);
      else if (f.type === 'choice') assert.is(f.plain ? shown : shown.value, value, name);
      else if (f.type === 'ip_address' || f.type === 'ip_prefix') assert.is(shown, value, name);
      else if (f.type !== 'password') assert.equal(shown, value, name);
    }
    if (d.timestamps) {
      // a date, or the date-time a version's `convert: { created: date_time }` shows
      assert.match(body.created, entry.serializer.convert?.created ? /^\d{4}-\d{2}-\d{2}T/ : /^\d{4}-\d{2}-\d{2}$/);
      assert.match(body.last_updated, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/);
    }
    if (d.tags) assert.equal(body.tags, []);
    if (d.customFields) assert.equal(body.custom_fields, {});
    for (const f of Object.values(d.fields)) {
      if (f.type === 'choice' && body[f.name] !== null && !f.readOnly) {
        // a plain choice that may be blank reads blank as "" (a cable's type)
        if (f.plain) assert.ok((f.blank && body[f.name] === '') || choiceSet(f.choices!).choices.some((c) => c.value === body[f.name]), `${f.name} is a bare value`);
        else assert.ok(choiceSet(f.choices!).choices.some((c) => c.value === body[f.name].value && c.label === body[f.name].label), `${f.name} is {value, label}`);
      }
      if (f.type === 'fk' && !f.writeOnly && !(f.name in input) && f.default === undefined) assert.is(body[f.name], null, `${f.name} unset is null`);
    }
    // The answer is the object as a read then shows it (reverse relations, counts and tags included),
    // but for what a create alone reveals (a new token's key).
    const read = await app.get(`${list}${body.id}/`);
    const revealed = Object.values(d.fields).filter((f) => f.type === 'token_key').map((f) => f.name);
    const shown = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => !revealed.includes(k)));
    assert.equal(shown(body), shown(read), 'the create answers what a read shows');
    created.push(body);
  });

  test('POST with an array creates every object, in order', async () => {
    const inputs = [await inputFor(app, entry), await inputFor(app, entry), await inputFor(app, entry)];
    const reply = await app.api('POST', list, inputs);
    expectStatus(reply, 201);
    assert.is(reply.body.length, 3);
    const key = requiredText(entry)?.name;
    if (key) assert.equal(reply.body.map((o: any) => o[key]), inputs.map((i) => i[key]));
    created.push(...reply.body);
  });

  test('GET retrieves one object; brief=1 shows exactly the brief fields', async () => {
    const obj = created[0];
    const reply = await app.api('GET', detailPath(entry, obj.id));
    expectStatus(reply, 200);
    assert.is(reply.body.id, obj.id);
    assert.is(reply.body.display, obj.display);
    const brief = await app.api('GET', `${detailPath(entry, obj.id)}?brief=1`);
    expectStatus(brief, 200);
    assert.equal(Object.keys(brief.body).sort(), [...entry.serializer.brief].sort());
    const missing = await app.api('GET', detailPath(entry, 999999));
    expectStatus(missing, 404);
    assert.equal(missing.body, { detail: 'Not found.' });
  });

  test('GET lists objects with count/next/previous/results; brief lists too', async () => {
    const reply = await app.api('GET', `${list}?limit=1000`);
    expectStatus(reply, 200);
    assert.equal(Object.keys(reply.body), ['count', 'next', 'previous', 'results']);
    for (const obj of created) assert.ok(ids(reply).includes(obj.id), `object ${obj.id} listed`);
    const brief = await app.api('GET', `${list}?brief=1&limit=1`);
    assert.equal(Object.keys(brief.body.results[0]).sort(), [...entry.serializer.brief].sort());
  });

  test('pagination links are absolute and keep the filters', async () => {
    const total = (await app.api('GET', `${list}?limit=1`)).body.count;
    assert.ok(total >= 4, 'at least four objects');
    const first = await app.api('GET', `${list}?limit=2&id__gte=1`);
    assert.is(first.body.results.length, 2);
    assert.is(first.body.previous, null);
    const nextUrl = new URL(first.body.next);
    assert.is(nextUrl.origin + nextUrl.pathname, app.url + list);
    assert.is(nextUrl.searchParams.get('offset'), '2');
    assert.is(nextUrl.searchParams.get('limit'), '2');
    assert.is(nextUrl.searchParams.get('id__gte'), '1');
    const second = await app.api('GET', nextUrl.pathname + nextUrl.search);
    assert.ok(second.body.previous);
    assert.not.ok(second.body.results.some((r: any) => ids(first).includes(r.id)), 'pages do not overlap');
    const past = await app.api('GET', `${list}?offset=100000`);
    expectStatus(past, 200);
    assert.equal(past.body.results, []);
  });

  test('PATCH changes only the given fields; PUT replaces with full data', async () => {
    const obj = created[0];
    const text = editableText(entry);
    const patch: Record<string, unknown> = text ? { [text.name]: `patched ${text.name}` } : {};
    const reply = await app.api('PATCH', detailPath(entry, obj.id), patch);
    expectStatus(reply, 200);
    if (text) assert.is(reply.body[text.name], `patched ${text.name}`);
    const key = requiredText(entry)?.name;
    if (key) assert.is(reply.body[key], obj[key], 'other fields unchanged');
    const full = await inputFor(app, entry);
    // Keep the same parents: some objects (interfaces) may not move to another one.
    for (const f of Object.values(d.fields)) if (f.type === 'fk' && f.name in full && obj[f.name]) full[f.name] = obj[f.name].id;
    const put = await app.api('PUT', detailPath(entry, obj.id), full);
    expectStatus(put, 200);
    if (key) assert.is(put.body[key], full[key]);
    created[0] = put.body;
  });

  test('PATCH on the list updates many objects; elements may carry different fields', async () => {
    const text = editableText(entry);
    if (!text) return;
    const [a, b] = [created[1], created[2]];
    const reply = await app.api('PATCH', list, [{ id: a.id, [text.name]: 'bulk one' }, { id: b.id, [text.name]: 'bulk two' }]);
    expectStatus(reply, 200);
    assert.equal(reply.body.map((o: any) => o[text.name]), ['bulk one', 'bulk two']);
    const check = await app.api('GET', detailPath(entry, b.id));
    assert.is(check.body[text.name], 'bulk two');
  });

  test('filters: every lookup family', async () => {
    const obj = (await app.api('GET', detailPath(entry, created[1].id))).body;
    const has = (reply: any) => reply.body.results.some((r: any) => r.id === obj.id);
    const q = (params: string) => app.api('GET', `${list}?limit=1000&${params}`);
    // numeric
    assert.ok(has(await q(`id=${obj.id}`)));
    assert.ok(has(await q(`id__gte=${obj.id}&id__lte=${obj.id}`)));
    assert.not.ok(has(await q(`id__gt=${obj.id}`)));
    assert.not.ok(has(await q(`id__lt=${obj.id}`)));
    assert.not.ok(has(await q(`id__n=${obj.id}`)));
    expectStatus(await q('id=abc'), 400, 'a malformed integer');
    // string
    const text = requiredText(entry);
    if (text) {
      const value: string = obj[text.name];
      assert.ok(has(await q(`${text.name}=${encodeURIComponent(value)}`)), 'exact');
      assert.not.ok(has(await q(`${text.name}__n=${encodeURIComponent(value)}`)), 'n');
      assert.ok(has(await q(`${text.name}__ic=${encodeURIComponent(value.slice(1, -1).toUpperCase())}`)), 'ic');
      assert.not.ok(has(await q(`${text.name}__nic=${encodeURIComponent(value.slice(1, -1).toUpperCase())}`)), 'nic');
      assert.ok(has(await q(`${text.name}__isw=${encodeURIComponent(value.slice(0, 3).toUpperCase())}`)), 'isw');
      assert.not.ok(has(await q(`${text.name}__nisw=${encodeURIComponent(value.slice(0, 3))}`)), 'nisw');
      assert.ok(has(await q(`${text.name}__iew=${encodeURIComponent(value.slice(-2))}`)), 'iew');
      assert.not.ok(has(await q(`${text.name}__niew=${encodeURIComponent(value.slice(-2))}`)), 'niew');
      assert.ok(has(await q(`${text.name}__ie=${encodeURIComponent(value.toUpperCase())}`)), 'ie');
      assert.not.ok(has(await q(`${text.name}__nie=${encodeURIComponent(value.toUpperCase())}`)), 'nie');
      assert.not.ok(has(await q(`${text.name}__empty=true`)), 'empty');
      assert.ok(has(await q(`${text.name}__empty=false`)), 'not empty');
      assert.ok(has(await q(`${text.name}=${encodeURIComponent(value)}&${text.name}=no-such-value`)), 'repeats OR');
      assert.not.ok(has(await q(`${text.name}=${encodeURIComponent(value)}&id=${obj.id + 100000}`)), 'parameters AND');
    }
    // exact-only: choices and relations
    const choice = Object.values(d.fields).find((f) => f.type === 'choice' && !f.readOnly && obj[f.name] && entry.filters[f.name]);
    if (choice) {
      const v = choice.plain ? obj[choice.name] : obj[choice.name].value;
      assert.ok(has(await q(`${choice.name}=${v}`)), `${choice.name}=`);
      assert.not.ok(has(await q(`${choice.name}__n=${v}`)), `${choice.name}__n`);
    }
    const fk = Object.values(d.fields).find((f) => f.type === 'fk' && obj[f.name]);
    if (fk) {
      const target = model(fk.to!);
      assert.ok(has(await q(`${fk.name}_id=${obj[fk.name].id}`)), `${fk.name}_id`);
      assert.not.ok(has(await q(`${fk.name}_id__n=${obj[fk.name].id}`)), `${fk.name}_id__n`);
      assert.not.ok(has(await q(`${fk.name}_id=null`)), `${fk.name}_id=null`);
      // the filter named as the relation finds it by what it declares (a VDC's device by id, as NetBox does), else by the target's lookup
      const declared = entry.filters[fk.name];
      const lookup = declared?.kind === 'path' ? declared.by : target.definition.lookup;
      if (declared && lookup !== 'id') {
        const related = (await app.api('GET', detailPath(target, obj[fk.name].id))).body;
        const value = typeof related[lookup] === 'object' && related[lookup] ? related[lookup].value : related[lookup];
        assert.ok(has(await q(`${fk.name}=${encodeURIComponent(value)}`)), `${fk.name}=<${lookup}>`);
      }
    }
    // a boolean the default version shows (a token's `enabled` is 4.6's)
    const bool = Object.values(d.fields).find((f) => f.type === 'boolean' && entry.filters[f.name] && f.name in obj);
    if (bool) {
      const v = obj[bool.name];
      assert.ok(has(await q(`${bool.name}=${v ? 'True' : 'False'}`)), `${bool.name}`);
      assert.not.ok(has(await q(`${bool.name}=${v ? 'false' : 'true'}`)), `${bool.name} negated`);
    }
    // Strict filters (the default): an unknown parameter is a 400 naming it, never a wider result.
    const unknown = await q(`no_such_filter=1&id=${obj.id}`);
    expectStatus(unknown, 400, 'an unknown parameter');
    assert.ok(unknown.body.no_such_filter, JSON.stringify(unknown.body));
  });

  test('relations may be written by attributes', async () => {
    // A relation other relations must agree with (`same:`, a front port's device) is left as built.
    const shared = new Set(Object.values(d.fields).flatMap((f) => f.same ?? []));
    const fk = Object.values(d.fields).find((f) => f.type === 'fk' && f.required && model(f.to!).definition.lookup !== 'id' && f.to !== d.name && !shared.has(f.name));
    if (!fk) return;
    const target = model(fk.to!);
    const base = await inputFor(app, entry);
    const related = await createRelated(app, fk, base);
    const lookup = target.definition.lookup;
    const input = { ...base, [fk.name]: { [lookup]: related[lookup] } };
    const reply = await app.api('POST', list, input);
    expectStatus(reply, 201);
    assert.is(reply.body[fk.name].id, related.id);
    const none = await app.api('POST', list, { ...(await inputFor(app, entry)), [fk.name]: { [lookup]: 'no-such-thing' } });
    expectStatus(none, 400);
    assert.ok(none.body[fk.name]?.[0]?.includes('not found'), JSON.stringify(none.body));
    created.push(reply.body);
  });

  test('DELETE removes one object (204, empty body); DELETE on the list removes many', async () => {
    const victim = created.pop();
    const reply = await app.api('DELETE', detailPath(entry, victim.id));
    expectStatus(reply, 204);
    assert.is(reply.text, '');
    expectStatus(await app.api('GET', detailPath(entry, victim.id)), 404);
    const more = [await createObject(app, entry), await createObject(app, entry)];
    const bulk = await app.api('DELETE', list, more.map((o) => ({ id: o.id })));
    expectStatus(bulk, 204);
    for (const o of more) expectStatus(await app.api('GET', detailPath(entry, o.id)), 404);
  });

  if (last) test.after(() => app.stop());
  test.run();
}

/** Read-only models (the change log): their records come from writes to other models. */
function readOnlyConformance(served: ModelEntry, last: boolean) {
  const entry = asServed(served);
  const list = listPath(entry);
  const test = suite(`${entry.definition.name} ${list} (read-only)`);
  test.before(async () => { app = await starting; });

  test('lists and retrieves records; brief=1 shows the brief fields; pages link', async () => {
    for (let i = 0; i < 4; i++) await seedRow(app, entry);
    const reply = await app.api('GET', `${list}?limit=2`);
    expectStatus(reply, 200);
    assert.ok(reply.body.count >= 4);
    assert.is(reply.body.results.length, 2);
    assert.ok(reply.body.next.startsWith(app.url + list));
    const one = reply.body.results[0];
    const detail = await app.api('GET', detailPath(entry, one.id));
    expectStatus(detail, 200);
    assert.equal(detail.body, one);
    const expected = entry.serializer.full.flatMap((n) => (entry.definition.fields[n]?.type === 'generic_fk' ? [entry.definition.fields[n].typeKey!, `${n}_id`, entry.definition.fields[n].nestedKey ?? n] : [n]));
    assert.equal(Object.keys(one).sort(), expected.sort());
    const brief = await app.api('GET', `${detailPath(entry, one.id)}?brief=1`);
    assert.equal(Object.keys(brief.body).sort(), [...entry.serializer.brief].sort());
    assert.ok((await app.api('GET', `${list}?id=${one.id}`)).body.results.every((r: any) => r.id === one.id));
    assert.not.ok((await app.api('GET', `${list}?id__n=${one.id}&limit=1000`)).body.results.some((r: any) => r.id === one.id));
  });

  test('writes are not allowed (405)', async () => {
    const one = (await app.api('GET', `${list}?limit=1`)).body.results[0];
    expectStatus(await app.api('POST', list, {}), 405);
    expectStatus(await app.api('PATCH', detailPath(entry, one.id), {}), 405);
    expectStatus(await app.api('DELETE', detailPath(entry, one.id)), 405);
  });

  if (last) test.after(() => app.stop());
  test.run();
}

// CONFORMANCE_MODELS=IPAddress,ImageAttachment runs those models only (a change's own, on a busy machine).
const only = process.env.CONFORMANCE_MODELS?.split(',').map((n) => n.trim()).filter(Boolean);
const order = only?.length ? modelList.filter((m) => only.includes(m.definition.name)) : modelList;
order.forEach((entry, i) => (entry.definition.readOnly ? readOnlyConformance : conformance)(entry, i === order.length - 1));
