"""pynetbox records: create, get by id and by filter, save() with only the changed fields, update(),
delete, relations written by id and by nested attributes, lazy loading of nested objects, tags."""
import pynetbox

from _harness import State, URL, Checks, api, body_of, eq, raises, request_error, true

c = Checks("records")
nb = c.watch(api())
state = State()


@c.check("create returns a Record with id, absolute url and choice dicts")
def _():
    site = nb.dcim.sites.create(name="py-rec-1", slug="py-rec-1", status="planned", description="first")
    true(isinstance(site, pynetbox.core.response.Record), "create() returns a Record")
    true(isinstance(site.id, int) and site.id > 0, f"id is a positive int, got {site.id!r}")
    eq(site.url, f"{URL}/api/dcim/sites/{site.id}/", "url")
    eq(str(site), "py-rec-1", "str(site)")
    eq((site.status.value, site.status.label), ("planned", "Planned"), "status choice")
    eq(nb.wire.requests("POST")[-1].status_code, 201, "POST status")
    for key in ("tenant", "region", "time_zone", "latitude", "custom_fields", "tags", "prefix_count"):
        true(key in dict(site), f"the response has {key!r} (every field is present)")
    eq(site.tenant, None, "unset relation is null")
    state["site"] = site


@c.check("get by id, and None for an unknown id")
def _():
    site = nb.dcim.sites.get(state["site"].id)
    eq((site.id, site.name, site.description), (state["site"].id, "py-rec-1", "first"), "get(id)")
    eq(nb.dcim.sites.get(999999), None, "get() of an unknown id")


@c.check("get by filter: one, none, more than one")
def _():
    eq(nb.dcim.sites.get(slug="py-rec-1").id, state["site"].id, "get(slug=)")
    eq(nb.dcim.sites.get(name="py-rec-1", status="planned").id, state["site"].id, "get(name=, status=)")
    eq(nb.dcim.sites.get(name="py-rec-missing"), None, "get() with no match")
    first = nb.wire.requests("GET")[-1].request.url
    true("limit=0" in first, f"get(**kw) asks limit=0 ({first})")
    nb.dcim.sites.create(name="py-rec-2", slug="py-rec-2", status="planned")
    raises(ValueError, lambda: nb.dcim.sites.get(status="planned", name__isw="py-rec-"), "get() with two matches")


@c.check("save() sends only the changed fields")
def _():
    site = nb.dcim.sites.get(state["site"].id)
    site.description = "second"
    site.status = "active"
    nb.wire.clear()
    eq(site.save(), True, "save()")
    patches = nb.wire.requests("PATCH")
    eq(len(patches), 1, "one PATCH")
    eq(patches[0].request.url, f"{URL}/api/dcim/sites/{site.id}/", "PATCH URL")
    eq(body_of(patches[0]), {"description": "second", "status": "active"}, "PATCH body")
    eq(patches[0].status_code, 200, "PATCH status")
    again = nb.dcim.sites.get(site.id)
    eq((again.description, again.status.value, again.name), ("second", "active", "py-rec-1"), "stored values")
    nb.wire.clear()
    eq(again.save(), False, "save() without changes")
    eq(nb.wire.requests("PATCH"), [], "no PATCH without changes")


@c.check("update(dict) patches the given fields")
def _():
    site = nb.dcim.sites.get(state["site"].id)
    nb.wire.clear()
    eq(site.update({"facility": "Hall 7", "comments": "via update()"}), True, "update()")
    eq(body_of(nb.wire.requests("PATCH")[-1]), {"facility": "Hall 7", "comments": "via update()"}, "PATCH body")
    again = nb.dcim.sites.get(site.id)
    eq((again.facility, again.comments), ("Hall 7", "via update()"), "stored values")


@c.check("decimal and time zone fields round-trip through save()")
def _():
    site = nb.dcim.sites.get(state["site"].id)
    site.latitude = 52.520008
    site.longitude = 13.404954
    site.time_zone = "Europe/Berlin"
    eq(site.save(), True, "save()")
    again = nb.dcim.sites.get(site.id)
    eq((again.latitude, again.longitude, again.time_zone), (52.520008, 13.404954, "Europe/Berlin"), "stored values")
    nb.wire.clear()
    eq(again.save(), False, "save() right after get() sends nothing")


@c.check("relations by id: create and change")
def _():
    t1, t2 = nb.tenancy.tenants.create([{"name": "py-rec-t1", "slug": "py-rec-t1"}, {"name": "py-rec-t2", "slug": "py-rec-t2"}])
    site = nb.dcim.sites.create(name="py-rec-3", slug="py-rec-3", tenant=t1.id)
    eq(site.tenant.id, t1.id, "tenant by id")
    eq(site.tenant.url, f"{URL}/api/tenancy/tenants/{t1.id}/", "nested tenant url")
    site.tenant = t2.id
    nb.wire.clear()
    eq(site.save(), True, "save() with a new tenant id")
    eq(body_of(nb.wire.requests("PATCH")[-1]), {"tenant": t2.id}, "PATCH body")
    eq(nb.dcim.sites.get(site.id).tenant.id, t2.id, "stored tenant")
    site.tenant = None
    eq(site.save(), True, "save() clearing the tenant")
    eq(nb.dcim.sites.get(site.id).tenant, None, "tenant cleared")
    state["tenant"] = t1


@c.check("relations by nested attributes (device with rack as {name, site: {slug}})")
def _():
    site = state["site"]
    mfr = nb.dcim.manufacturers.create(name="py-rec-mfr", slug="py-rec-mfr")
    dtype = nb.dcim.device_types.create(manufacturer={"slug": "py-rec-mfr"}, model="PyRec 9000", slug="pyrec-9000", u_height=1)
    eq(dtype.manufacturer.id, mfr.id, "device type manufacturer by slug")
    role = nb.dcim.device_roles.create(name="py-rec-role", slug="py-rec-role", color="ff0000")
    rack = nb.dcim.racks.create(name="py-rec-rack", site={"slug": site.slug})
    eq(rack.site.id, site.id, "rack site by slug")
    device = nb.dcim.devices.create(
        name="py-rec-dev1",
        device_type={"slug": "pyrec-9000"},
        device_role={"slug": "py-rec-role"},
        site={"slug": site.slug},
        rack={"name": "py-rec-rack", "site": {"slug": site.slug}},
        tenant={"slug": "py-rec-t1"},
        status="active",
    )
    eq(device.rack.id, rack.id, "device rack by nested attributes")
    eq(device.site.id, site.id, "device site by slug")
    eq(device.device_type.id, dtype.id, "device type by slug")
    eq(device.device_role.id, role.id, "device_role by slug")
    eq(device.tenant.id, state["tenant"].id, "tenant by slug")
    state.update(device=device, rack=rack, role=role, dtype=dtype)


# Fields of NetBox 3.7's device representation that the clients read or diff (Ansible's interface module
# reads device["virtual_chassis"], nb_inventory reads primary_ip and cluster, pynetbox maps primary_ip).
DEVICE_FIELDS_3_7 = [
    "id", "url", "display", "name", "device_type", "role", "device_role", "tenant", "platform", "serial", "asset_tag",
    "site", "location", "rack", "position", "face", "latitude", "longitude", "parent_device", "status", "airflow",
    "primary_ip", "primary_ip4", "primary_ip6", "oob_ip", "cluster", "virtual_chassis", "vc_position", "vc_priority",
    "description", "comments", "config_template", "config_context", "local_context_data", "tags", "custom_fields",
    "created", "last_updated",
]


@c.check("a device has every NetBox 3.7 device field")
def _():
    raw = nb.http_session.get(state["device"].url, headers={"Authorization": f"Token {nb.token}", "Accept": "application/json"}).json()
    missing = [f for f in DEVICE_FIELDS_3_7 if f not in raw]
    true(not missing, f"GET /api/dcim/devices/<id>/ lacks {missing}")


@c.check("nested attributes that match nothing give 400 naming the field")
def _():
    err = request_error(
        lambda: nb.dcim.devices.create(name="py-rec-bad", device_type=state["dtype"].id, device_role=state["role"].id,
                                       site=state["site"].id, rack={"name": "no-such-rack"}),
        400, "create with an unknown rack")
    true("rack" in err.req.json(), f"the 400 body names rack: {err.req.text[:200]}")


@c.check("lazy loading of nested objects and full_details()")
def _():
    device = nb.dcim.devices.get(state["device"].id)
    nb.wire.clear()
    eq(device.site.time_zone, "Europe/Berlin", "device.site.time_zone (not in the nested site)")
    gets = nb.wire.requests("GET")
    eq([g.request.url for g in gets], [f"{URL}/api/dcim/sites/{state['site'].id}/"], "one GET of the site's url")
    brief = list(nb.dcim.devices.filter(id=device.id, brief=1))[0]
    true("device_type" not in dict(brief), "brief=1 gives the brief form")
    nb.wire.clear()
    eq(brief.serial, "", "lazy load of a brief record (serial)")
    eq([g.request.url for g in nb.wire.requests("GET")], [f"{URL}/api/dcim/devices/{device.id}/"], "one GET of the device's url")
    eq(brief.device_type.model, "PyRec 9000", "device_type after the lazy load")
    eq(device.full_details(), True, "full_details()")


@c.check("tags: by name, by id and mixed; add, replace, clear; filter by tag")
def _():
    tags = nb.extras.tags.create([
        {"name": "py-rec-tag1", "slug": "py-rec-tag1", "color": "aa1409"},
        {"name": "py-rec-tag2", "slug": "py-rec-tag2"},
        {"name": "py-rec-tag3", "slug": "py-rec-tag3"},
    ])
    site = nb.dcim.sites.create(name="py-rec-tagged", slug="py-rec-tagged", tags=[{"name": "py-rec-tag1"}, tags[1].id])
    eq(sorted(t.slug for t in site.tags), ["py-rec-tag1", "py-rec-tag2"], "tags given by name and id")
    true(all(t.url == f"{URL}/api/extras/tags/{t.id}/" for t in site.tags), "nested tags carry their url")
    site.tags.append(tags[2])
    nb.wire.clear()
    eq(site.save(), True, "save() with an added tag")
    eq(sorted(body_of(nb.wire.requests("PATCH")[-1])["tags"]), sorted(t.id for t in tags), "tags sent as ids")
    eq(sorted(t.slug for t in nb.dcim.sites.get(site.id).tags), ["py-rec-tag1", "py-rec-tag2", "py-rec-tag3"], "stored tags")
    eq([s.id for s in nb.dcim.sites.filter(tag="py-rec-tag3")], [site.id], "filter(tag=slug)")
    eq([s.id for s in nb.dcim.sites.filter(tag=["py-rec-tag1", "py-rec-tag3"])], [site.id], "filter(tag=[a, b]) (AND)")
    site = nb.dcim.sites.get(site.id)
    site.tags = [{"slug": "py-rec-tag2"}]
    eq(site.save(), True, "save() replacing tags by slug")
    eq([t.slug for t in nb.dcim.sites.get(site.id).tags], ["py-rec-tag2"], "replaced tags")
    site = nb.dcim.sites.get(site.id)
    site.tags = []
    eq(site.save(), True, "save() clearing tags")
    eq(nb.dcim.sites.get(site.id).tags, [], "cleared tags")


@c.check("duplicate create is 400, not 409 or 204")
def _():
    err = request_error(lambda: nb.dcim.sites.create(name="py-rec-1", slug="py-rec-1"), 400, "duplicate site")
    true({"name", "slug"} & set(err.req.json()), f"the 400 body names the field: {err.req.text[:200]}")


@c.check("delete() removes the object; protected delete is 409")
def _():
    err = request_error(lambda: state["site"].delete(), 409, "delete of a site with a device")
    true("detail" in err.req.json(), "409 body has detail")
    eq(state["device"].delete(), True, "device.delete()")
    eq(nb.wire.requests("DELETE")[-1].status_code, 204, "DELETE status")
    eq(nb.dcim.devices.get(state["device"].id), None, "deleted device is gone")
    eq(state["rack"].delete(), True, "rack.delete()")
    eq(nb.dcim.sites.get(state["site"].id).delete(), True, "site.delete()")
    eq(nb.dcim.sites.get(state["site"].id), None, "deleted site is gone")
    request_error(lambda: nb.dcim.sites.get(state["site"].id) or state["site"].delete(), 404, "second delete")


c.done()
