/**
 * Object permission constraints in Django's lookup syntax, as NetBox stores them: pk, fields,
 * relation paths, the lookups, NetBox's network lookups, lists meaning any, and $user; enforced on
 * list, detail, create, update and delete; an unknown field or lookup is a 400 naming it; the
 * filters' own syntax still applies.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, startApp, type TestApp } from './helpers.js';

const test = suite('permission constraints in Django lookup syntax');
let app: TestApp;
let n = 0;
const unique = (s: string) => `${s}-pl${++n}`;
const PERMISSIONS = '/api/users/permissions/';

async function account(): Promise<{ id: number; key: string }> {
  const user = await app.post('/api/users/users/', { username: unique('u').replace(/-/g, '_'), password: 'Passphrase-for-tests-1' });
  const token = await app.post('/api/users/tokens/', { user: user.id });
  return { id: user.id, key: token.key };
}

let user: { id: number; key: string };
let permission: { id: number };

/** The test's user, granted only `actions` on `types` under `constraints`; the ids of `path` they see, sorted. */
async function granted(types: string[], constraints: unknown, actions = ['view']) {
  const u = user;
  await app.patch(`${PERMISSIONS}${permission.id}/`, { object_types: types, actions, constraints });
  const seen = async (path: string) => {
    const reply = await app.api('GET', `${path}?limit=1000`, undefined, { token: u.key });
    expectStatus(reply, 200, `GET ${path} under ${JSON.stringify(constraints)}:`);
    return (reply.body.results as any[]).map((r) => r.id).sort((a, b) => a - b);
  };
  return { u, seen };
}

let groups: any[];
let tenants: any[];
let sites: any[];

test.before(async () => {
  app = await startApp({ RUN_WORKER: '0' });
  user = await account();
  permission = await app.post(PERMISSIONS, { name: 'the test user', object_types: ['dcim.site'], actions: ['view'], users: [user.id] });
  groups = [await app.post('/api/tenancy/tenant-groups/', { name: 'Core group', slug: 'core-group' }), await app.post('/api/tenancy/tenant-groups/', { name: 'Edge group', slug: 'edge-group' })];
  tenants = [
    await app.post('/api/tenancy/tenants/', { name: 'core-one', slug: 'core-one', group: groups[0].id }),
    await app.post('/api/tenancy/tenants/', { name: 'Core-Two', slug: 'core-two', group: groups[1].id }),
    await app.post('/api/tenancy/tenants/', { name: 'edge', slug: 'edge', description: 'x' }),
  ];
  sites = [
    await app.post('/api/dcim/sites/', { name: 'dc1', slug: 'dc1', tenant: tenants[0].id, status: 'active' }),
    await app.post('/api/dcim/sites/', { name: 'dc2', slug: 'dc2', tenant: tenants[1].id, status: 'planned' }),
    await app.post('/api/dcim/sites/', { name: 'lab', slug: 'lab', status: 'active' }),
  ];
});
test.after(() => app.stop());

test('pk, fields, lookups, relation paths and lists of them decide what a list shows', async () => {
  const [t1, t2, t3] = tenants.map((t) => t.id);
  const [s1, s2] = sites.map((s) => s.id);
  const cases: [string[], unknown, string, number[]][] = [
    [['tenancy.tenant'], { pk: t2 }, '/api/tenancy/tenants/', [t2]],
    [['tenancy.tenant'], { pk__in: [t1, t3] }, '/api/tenancy/tenants/', [t1, t3]],
    [['tenancy.tenant'], { id__in: [t2] }, '/api/tenancy/tenants/', [t2]],
    [['tenancy.tenant'], { name__istartswith: 'core-' }, '/api/tenancy/tenants/', [t1, t2]],
    [['tenancy.tenant'], { name__startswith: 'core-' }, '/api/tenancy/tenants/', [t1]],
    [['tenancy.tenant'], { name__contains: 'Core' }, '/api/tenancy/tenants/', [t2]],
    [['tenancy.tenant'], { name__icontains: 'ORE' }, '/api/tenancy/tenants/', [t1, t2]],
    [['tenancy.tenant'], { name__iexact: 'CORE-ONE' }, '/api/tenancy/tenants/', [t1]],
    [['tenancy.tenant'], { name__endswith: 'Two' }, '/api/tenancy/tenants/', [t2]],
    [['tenancy.tenant'], { name__iendswith: 'TWO' }, '/api/tenancy/tenants/', [t2]],
    [['tenancy.tenant'], { name__regex: '^core-(one|two)$' }, '/api/tenancy/tenants/', [t1]],
    [['tenancy.tenant'], { name__iregex: '^core-(one|two)$' }, '/api/tenancy/tenants/', [t1, t2]],
    [['tenancy.tenant'], { group__isnull: true }, '/api/tenancy/tenants/', [t3]],
    [['tenancy.tenant'], { group__slug: 'edge-group' }, '/api/tenancy/tenants/', [t2]],
    [['tenancy.tenant'], { group: groups[0].id }, '/api/tenancy/tenants/', [t1]],
    [['tenancy.tenant'], { group_id__in: [groups[0].id, groups[1].id] }, '/api/tenancy/tenants/', [t1, t2]],
    [['tenancy.tenant'], { id__gt: t1, id__lte: t2 }, '/api/tenancy/tenants/', [t2]],
    [['tenancy.tenant'], [{ pk: t1 }, { slug: 'edge' }], '/api/tenancy/tenants/', [t1, t3]],
    [['dcim.site'], { tenant__group__name: 'Core group' }, '/api/dcim/sites/', [s1]],
    [['dcim.site'], { tenant__slug__in: ['core-one', 'core-two'], status: 'active' }, '/api/dcim/sites/', [s1]],
    [['dcim.site'], { tenant__isnull: false }, '/api/dcim/sites/', [s1, s2]],
    [['dcim.site'], { status__in: ['planned'] }, '/api/dcim/sites/', [s2]],
    // the filters' own syntax still applies
    [['dcim.site'], { name__ic: 'dc', status: 'active' }, '/api/dcim/sites/', [s1]],
    [['dcim.site'], { tenant: 'core-two' }, '/api/dcim/sites/', [s2]],
  ];
  for (const [types, constraints, path, expected] of cases) {
    const { seen } = await granted(types, constraints);
    assert.equal(await seen(path), expected, JSON.stringify(constraints));
  }
});

test('$user stands for the requesting user; the network lookups compare prefixes', async () => {
  const me = await granted(['users.user'], { pk: '$user' });
  assert.equal(await me.seen('/api/users/users/'), [me.u.id]);
  const p = [await app.post('/api/ipam/prefixes/', { prefix: '10.1.0.0/16' }), await app.post('/api/ipam/prefixes/', { prefix: '10.1.2.0/24' }), await app.post('/api/ipam/prefixes/', { prefix: '192.0.2.0/24' })].map((x) => x.id);
  for (const [constraints, expected] of [
    [{ prefix__net_contained: '10.0.0.0/8' }, [p[0], p[1]]],
    [{ prefix__net_contained_or_equal: '10.1.0.0/16' }, [p[0], p[1]]],
    [{ prefix__net_contains_or_equals: '10.1.2.0/24' }, [p[0], p[1]]],
    [{ prefix__net_contains: '10.1.2.0/24' }, [p[0]]],
    [{ prefix__net_mask_length: 24 }, [p[1], p[2]]],
    [{ prefix: '192.0.2.0/24' }, [p[2]]],
  ] as [unknown, number[]][]) {
    const { seen } = await granted(['ipam.prefix'], constraints);
    assert.equal(await seen('/api/ipam/prefixes/'), expected, JSON.stringify(constraints));
  }
});

test('detail, create, update and delete are held to the constraint', async () => {
  const { u } = await granted(['dcim.site'], { tenant__slug: 'core-one', name__istartswith: 'dc' }, ['view', 'add', 'change', 'delete']);
  const as = (method: string, path: string, body?: unknown) => app.api(method, path, body, { token: u.key });
  expectStatus(await as('GET', `/api/dcim/sites/${sites[0].id}/`), 200);
  expectStatus(await as('GET', `/api/dcim/sites/${sites[1].id}/`), 404);
  expectStatus(await as('POST', '/api/dcim/sites/', { name: 'other', slug: unique('o'), tenant: tenants[0].id }), 403, 'create outside');
  const made = await as('POST', '/api/dcim/sites/', { name: 'dc-new', slug: unique('n'), tenant: tenants[0].id });
  expectStatus(made, 201, 'create inside');
  expectStatus(await as('PATCH', `/api/dcim/sites/${made.body.id}/`, { tenant: tenants[1].id }), 403, 'change to outside');
  expectStatus(await as('PATCH', `/api/dcim/sites/${sites[1].id}/`, { description: 'x' }), 404, 'change of an object outside');
  expectStatus(await as('PATCH', `/api/dcim/sites/${made.body.id}/`, { description: 'x' }), 200);
  expectStatus(await as('DELETE', `/api/dcim/sites/${sites[1].id}/`), 404, 'delete outside');
  expectStatus(await as('DELETE', `/api/dcim/sites/${made.body.id}/`), 204);
  assert.is((await app.get(`/api/dcim/sites/${sites[1].id}/`)).description, '');
});

test('an unknown field, relation or lookup is a 400 naming it', async () => {
  for (const [constraints, named] of [
    [{ nosuch: 1 }, 'nosuch'],
    [{ tenant__nosuch: 'x' }, 'nosuch'],
    [{ name__bogus: 'x' }, 'bogus'],
    [{ status__net_contained: '10.0.0.0/8' }, 'net_contained'],
    [{ pk__in: 3 }, 'pk__in'],
    [[{ pk: 1 }, { tenant__group__wrong__name: 'x' }], 'wrong'],
  ] as [unknown, string][]) {
    const reply = await app.api('POST', PERMISSIONS, { name: unique('bad'), object_types: ['dcim.site'], actions: ['view'], constraints });
    expectStatus(reply, 400, JSON.stringify(constraints));
    assert.ok(JSON.stringify(reply.body.constraints ?? '').includes(named), `${JSON.stringify(reply.body)} names ${named}`);
  }
});

test.run();
