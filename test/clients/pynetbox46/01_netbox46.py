"""pynetbox 7.8.0 against the NetBox 4.6 API (http://host/v4.6): the version it detects, CRUD in the
4.6 shapes (role, not device_role; display_url; descriptions in nested objects), filters, cursor
pagination (pagination="cursor": start, no count) and create_token() returning a v2 token that then
works as a Bearer token."""
from urllib.parse import parse_qs, urlsplit

import pynetbox

from _harness import ADMIN_PASSWORD, ADMIN_USERNAME, BASE, State, Checks, api, eq, ids, request_error, true

c = Checks("netbox46")
nb = c.watch(api())
cursor = c.watch(api(pagination="cursor"))
state = State()
TAG = "py46"


def query(response):
    return {k: v[-1] for k, v in parse_qs(urlsplit(response.request.url).query).items()}


@c.check("pynetbox sees NetBox 4.6 at /v4.6")
def _():
    eq(nb.version, "4.6", "nb.version (API-Version)")
    status = nb.status()
    eq(status["netbox-version"], "4.6.8", "status netbox-version")
    true(nb.wire.last().request.url.startswith(BASE + "/api/"), f"requests go under {BASE}/api/")


@c.check("create, read, update and delete a site in the 4.6 shape")
def _():
    site = nb.dcim.sites.create(name=f"{TAG}-site", slug=f"{TAG}-site", status="planned", description="first")
    true(site.url.startswith(BASE + "/api/dcim/sites/"), f"url under the 4.6 base ({site.url})")
    true(site.display_url.endswith(f"/dcim/sites/{site.id}/"), f"display_url ({site.display_url})")
    site.status = "active"
    true(site.save(), "save() sent a change")
    again = nb.dcim.sites.get(site.id)
    eq(again.status.value, "active", "status after save")
    eq(again.description, "first", "description")
    state["site"] = site.id
    gone = nb.dcim.sites.create(name=f"{TAG}-gone", slug=f"{TAG}-gone")
    true(gone.delete(), "delete()")
    eq(nb.dcim.sites.get(gone.id), None, "deleted site is gone")


@c.check("a device with role (not device_role); nested objects carry their description")
def _():
    maker = nb.dcim.manufacturers.create(name=f"{TAG}-maker", slug=f"{TAG}-maker")
    dtype = nb.dcim.device_types.create(manufacturer=maker.id, model=f"{TAG}-box", slug=f"{TAG}-box")
    role = nb.dcim.device_roles.create(name=f"{TAG}-leaf", slug=f"{TAG}-leaf", description="leaf switches")
    device = nb.dcim.devices.create(name=f"{TAG}-dev1", site=state["site"], device_type=dtype.id, role=role.id)
    eq(device.role.id, role.id, "role")
    true(not hasattr(device, "device_role") or device.device_role is None, "no device_role in 4.6")
    eq(device.role.description, "leaf switches", "nested role's description")
    eq(device.site.description, "first", "nested site's description")
    device.name = f"{TAG}-dev1-renamed"
    device.save()
    eq(nb.dcim.devices.get(device.id).name, f"{TAG}-dev1-renamed", "renamed")
    state["role"] = role.slug


@c.check("filter() with lookups and relations")
def _():
    for i in range(3):
        nb.tenancy.tenants.create(name=f"{TAG}-tenant-{i}", slug=f"{TAG}-tenant-{i}", description="py46 tenants")
    found = list(nb.tenancy.tenants.filter(name__isw=f"{TAG}-tenant-"))
    eq(sorted(t.name for t in found), [f"{TAG}-tenant-{i}" for i in range(3)], "name__isw")
    devices = list(nb.dcim.devices.filter(role=state["role"]))
    eq([d.name for d in devices], [f"{TAG}-dev1-renamed"], "devices by role slug")
    eq(nb.tenancy.tenants.count(description="py46 tenants"), 3, "count()")


@c.check('pagination="cursor" walks a list with start and next links, without counts')
def _():
    made = nb.dcim.sites.create([{"name": f"{TAG}-page-{i:02d}", "slug": f"{TAG}-page-{i:02d}", "description": "py46-page"} for i in range(25)])
    records = list(cursor.dcim.sites.filter(description="py46-page", limit=10))
    eq(ids(records), sorted(s.id for s in made), "every site once, in id order")
    # list() also asks for len(): pynetbox counts with a separate offset-style request (limit=1)
    gets = [r for r in cursor.wire.requests("GET") if "/dcim/sites/" in r.request.url and "start" in query(r)]
    eq(len(gets), 3, "three pages of 10")
    eq(query(gets[0]).get("start"), "0", "the first page starts at 0")
    true(all("offset" not in query(r) for r in gets), "no offset")
    true(all(r.json()["count"] is None for r in gets), "no count")
    eq(query(gets[1]).get("start"), str(records[9].id + 1), "next page from the last id + 1")
    eq(gets[-1].json()["next"], None, "the last page has no next")


@c.check("create_token() gets a v2 token, which then works as a Bearer token")
def _():
    anonymous = c.watch(api(token=None))
    token = anonymous.create_token(ADMIN_USERNAME, ADMIN_PASSWORD)
    eq(token.version, 2, "version")
    true(anonymous.token.startswith(f"nbt_{token.key}."), f"nb.token is nbt_<key>.<secret> ({anonymous.token[:17]}...)")
    eq(anonymous.dcim.sites.count(slug=f"{TAG}-site"), 1, "the new token reads")
    sent = anonymous.wire.last().request.headers.get("Authorization", "")
    true(sent.startswith("Bearer nbt_"), "sent as Bearer")
    tenant = anonymous.tenancy.tenants.create(name=f"{TAG}-by-v2", slug=f"{TAG}-by-v2")
    true(tenant.id > 0, "and writes")
    stored = nb.users.tokens.get(token.id)
    eq(stored.token, None, "the secret is not shown again")
    eq(stored.key, token.key, "the key is")


@c.check("a wrong v2 secret is refused with 403")
def _():
    bad = c.watch(api(token=None))
    bad.token = "nbt_AAAAAAAAAAAA." + "x" * 40
    request_error(lambda: bad.dcim.sites.count(), 403, "wrong v2 token")


c.done()
