/**
 * The authorisation matrix, generated from the schema: for every model endpoint and method, each
 * principal (no token, unknown token, expired token, read-only token, a user without permission, a
 * user whose permission is constrained to one object, a superuser) gets its exact status, and
 * writes that must fail change nothing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hooksOf, modelList } from '../runtime/data/registry.js';
import type { ModelEntry } from '../runtime/core/types.js';
import { asServed, detailPath, expectStatus, listPath, startApp, type TestApp } from './helpers.js';
import { createObject, editableText, inputFor, seedRow } from './factory.js';

// No webhook worker: seeded deliveries must stay as they were written.
const starting = startApp({ RUN_WORKER: '0' });
let app: TestApp;
const tokens: Record<string, string | null> = {};
let constrainedUser = 0;

const UNKNOWN = 'f'.repeat(40);

async function makeUser(name: string): Promise<{ id: number; key: string }> {
  const user = await app.api('POST', '/api/users/users/', { username: name, password: `${name}-password-123` });
  expectStatus(user, 201);
  const token = await app.api('POST', '/api/users/tokens/', { user: user.body.id });
  expectStatus(token, 201);
  return { id: user.body.id, key: token.body.key };
}

const setup = suite('authorisation: principals');
setup.before(async () => { app = await starting; });
setup('principals are ready', async () => {
  tokens.none = null;
  tokens.unknown = UNKNOWN;
  const expired = await app.api('POST', '/api/users/tokens/', { user: 1, expires: '2000-01-01T00:00:00Z' });
  expectStatus(expired, 201);
  tokens.expired = expired.body.key;
  const readOnly = await app.api('POST', '/api/users/tokens/', { user: 1, write_enabled: false });
  expectStatus(readOnly, 201);
  tokens.readOnly = readOnly.body.key;
  tokens.noPermission = (await makeUser('nobody')).key;
  const constrained = await makeUser('constrained');
  constrainedUser = constrained.id;
  tokens.constrained = constrained.key;
  assert.is((await app.api('GET', '/api/dcim/sites/', undefined, { token: tokens.expired })).status, 403);
});
setup.run();

function matrix(served: ModelEntry, last: boolean) {
  const entry = asServed(served);
  const d = entry.definition;
  const list = listPath(entry);
  const test = suite(`authorisation ${list}`);
  let allowed: any;
  let other: any;
  // Models every user may read without a permission (content types).
  const selfService = hooksOf(entry).some((h) => h.selfService);
  // Models whose objects have an owner (tokens): the owner acts on their own without a permission.
  const owned = hooksOf(entry).some((h) => h.owner);

  test.before(async () => {
    app = await starting;
    if (d.readOnly) {
      // a read-only model's records (the change log) are stored directly
      allowed = { id: await seedRow(app, entry) };
      other = { id: await seedRow(app, entry) };
    } else {
      allowed = await createObject(app, entry);
      other = await createObject(app, entry);
    }
    // The constrained user may do everything, but only to `allowed`.
    const perm = await app.api('POST', '/api/users/permissions/', {
      name: `only ${d.name} ${allowed.id}`, object_types: [d.contentType], actions: ['view', 'add', 'change', 'delete'],
      users: [constrainedUser], constraints: { id: allowed.id },
    });
    expectStatus(perm, 201);
  });

  /** The object as the superuser sees it, to prove a refused write changed nothing. */
  const snapshot = async (obj: any) => (await app.api('GET', detailPath(entry, obj.id))).body;
  const count = async () => (await app.api('GET', `${list}?limit=1`)).body.count;
  const text = editableText(entry);
  const patchBody = () => (text ? { [text.name]: `changed by ${Math.random()}` } : {});

  // The user without a permission is checked separately below on self-service and owned models.
  for (const principal of ['none', 'unknown', 'expired', ...(selfService || owned ? [] : ['noPermission'] as const)] as const) {
    test(`${principal}: every method is refused with 403 and nothing changes`, async () => {
      const token = tokens[principal];
      const refused = (reply: { status: number; text: string }, what: string) => assert.is(reply.status, 403, `${what}: ${reply.text.slice(0, 200)}`);
      refused(await app.api('GET', list, undefined, { token }), 'GET list');
      refused(await app.api('GET', detailPath(entry, allowed.id), undefined, { token }), 'GET detail');
      // The input is built first: building it may create objects of this model (a webhook brings its
      // event rule, a cable creates its terminations).
      const input = d.readOnly ? null : await inputFor(app, entry);
      const before = [await snapshot(allowed), await count()];
      if (!d.readOnly) {
        refused(await app.api('POST', list, input, { token }), 'POST');
        refused(await app.api('PATCH', detailPath(entry, allowed.id), patchBody(), { token }), 'PATCH');
        refused(await app.api('PATCH', list, [{ id: allowed.id, ...patchBody() }], { token }), 'bulk PATCH');
        refused(await app.api('DELETE', detailPath(entry, allowed.id), undefined, { token }), 'DELETE');
        refused(await app.api('DELETE', list, [{ id: allowed.id }], { token }), 'bulk DELETE');
        assert.equal([await snapshot(allowed), await count()], before, 'nothing changed');
      }
    });
  }

  if (selfService && d.readOnly) test('noPermission on a self-service read-only model: readable, not writable', async () => {
    const token = tokens.noPermission;
    expectStatus(await app.api('GET', detailPath(entry, allowed.id), undefined, { token }), 200);
    expectStatus(await app.api('POST', list, {}, { token }), 405);
  });

  if (owned) test('noPermission on a model with owners: no list; other users\' objects are invisible and untouched', async () => {
    const token = tokens.noPermission;
    expectStatus(await app.api('GET', `${list}?limit=1000`, undefined, { token }), 403, 'a list needs a view permission, as in NetBox');
    const input = await inputFor(app, entry);
    const before = [await snapshot(allowed), await count()];
    expectStatus(await app.api('GET', detailPath(entry, allowed.id), undefined, { token }), 404);
    expectStatus(await app.api('PATCH', detailPath(entry, allowed.id), patchBody(), { token }), 404);
    expectStatus(await app.api('DELETE', detailPath(entry, allowed.id), undefined, { token }), 404);
    expectStatus(await app.api('PATCH', list, [{ id: allowed.id, ...patchBody() }], { token }), 400);
    expectStatus(await app.api('DELETE', list, [{ id: allowed.id }], { token }), 400);
    expectStatus(await app.api('POST', list, input, { token }), 403, 'for another user');
    assert.equal([await snapshot(allowed), await count()], before, 'nothing changed');
  });

  test('read-only token: reads 200, writes 403, nothing changes', async () => {
    const token = tokens.readOnly;
    expectStatus(await app.api('GET', list, undefined, { token }), 200);
    expectStatus(await app.api('GET', detailPath(entry, allowed.id), undefined, { token }), 200);
    if (d.readOnly) return;
    const input = await inputFor(app, entry);
    const before = [await snapshot(allowed), await count()];
    expectStatus(await app.api('POST', list, input, { token }), 403);
    expectStatus(await app.api('PATCH', detailPath(entry, allowed.id), patchBody(), { token }), 403);
    expectStatus(await app.api('DELETE', detailPath(entry, allowed.id), undefined, { token }), 403);
    expectStatus(await app.api('DELETE', list, [{ id: allowed.id }], { token }), 403);
    const options = await app.api('OPTIONS', list, undefined, { token });
    expectStatus(options, 200);
    assert.not.ok(options.body.actions, 'OPTIONS shows no actions to a read-only token');
    assert.equal([await snapshot(allowed), await count()], before);
  });

  if (!selfService) test('constrained permission: only the allowed object is visible and writable', async () => {
    const token = tokens.constrained;
    const listed = await app.api('GET', `${list}?limit=1000`, undefined, { token });
    expectStatus(listed, 200);
    const ids = listed.body.results.map((r: any) => r.id);
    // On a model with owners the user's own objects are listed too.
    if (owned) assert.ok(ids.includes(allowed.id) && !ids.includes(other.id), `the allowed object and their own: ${ids}`);
    else assert.equal(ids, [allowed.id]);
    expectStatus(await app.api('GET', detailPath(entry, allowed.id), undefined, { token }), 200);
    expectStatus(await app.api('GET', detailPath(entry, other.id), undefined, { token }), 404);
    if (d.readOnly) return;
    const otherBefore = await snapshot(other);
    expectStatus(await app.api('PATCH', detailPath(entry, other.id), patchBody(), { token }), 404);
    expectStatus(await app.api('DELETE', detailPath(entry, other.id), undefined, { token }), 404);
    const bulk = await app.api('PATCH', list, [{ id: allowed.id, ...patchBody() }, { id: other.id, ...patchBody() }], { token });
    assert.ok(bulk.status === 400 || bulk.status === 404 || bulk.status === 403, `bulk PATCH touching a hidden object: ${bulk.status}`);
    assert.equal(await snapshot(other), otherBefore, 'the hidden object is unchanged');
    const input = await inputFor(app, entry);
    const before = await count();
    const created = await app.api('POST', list, input, { token });
    expectStatus(created, 403, 'a new object cannot match {id: <allowed>}');
    assert.is(await count(), before, 'nothing was created');
    const options = await app.api('OPTIONS', list, undefined, { token });
    assert.ok(options.body.actions?.POST, 'OPTIONS shows actions to a user who may add');
    if (text) {
      const changed = await app.api('PATCH', detailPath(entry, allowed.id), { [text.name]: 'by the constrained user' }, { token });
      expectStatus(changed, 200);
      assert.is(changed.body[text.name], 'by the constrained user');
    }
    expectStatus(await app.api('DELETE', detailPath(entry, allowed.id), undefined, { token }), 204);
    expectStatus(await app.api('GET', detailPath(entry, allowed.id)), 404);
  });

  test('superuser: every method succeeds', async () => {
    expectStatus(await app.api('GET', list), 200);
    expectStatus(await app.api('GET', detailPath(entry, other.id)), 200);
    if (d.readOnly) return;
    const created = await app.api('POST', list, await inputFor(app, entry));
    expectStatus(created, 201);
    expectStatus(await app.api('PATCH', detailPath(entry, created.body.id), patchBody()), 200);
    expectStatus(await app.api('DELETE', detailPath(entry, created.body.id)), 204);
  });

  if (last) test.after(() => app.stop());
  test.run();
}

// Users and permissions themselves are exercised too, except the permission model, whose own rows
// are what the constrained user's grants are made of.
const models = modelList.filter((m) => m.definition.name !== 'ObjectPermission');
models.forEach((entry, i) => matrix(entry, i === models.length - 1));
