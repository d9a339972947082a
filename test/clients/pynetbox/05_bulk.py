"""pynetbox bulk operations: create([...]), RecordSet.update(**kw) and .delete() (one PATCH / one DELETE on
the list URL, also across pages), Endpoint.update([...]) with dicts and Records, Endpoint.delete([...])
with ids and Records, and all-or-none behaviour."""
import pynetbox

from _harness import State, URL, Checks, api, body_of, eq, request_error, true

c = Checks("bulk")
nb = c.watch(api())
state = State()


@c.check("create([...]) returns the records in order")
def _():
    group = nb.tenancy.tenant_groups.create(name="py-bulk-group", slug="py-bulk-group")
    tenants = nb.tenancy.tenants.create([{"name": f"py-bulk-{i}", "slug": f"py-bulk-{i}", "group": group.id} for i in range(6)])
    eq([t.name for t in tenants], [f"py-bulk-{i}" for i in range(6)], "names in order")
    true(all(isinstance(t, pynetbox.core.response.Record) for t in tenants), "a list of Records")
    post = nb.wire.requests("POST", "/tenancy/tenants/")
    eq([p.status_code for p in post], [201], "one POST answered 201")
    state.update(group=group.id, tenants=tenants)


@c.check("RecordSet.update(**kw): one PATCH on the list URL")
def _():
    nb.wire.clear()
    updated = nb.tenancy.tenants.filter(group_id=state["group"]).update(description="bulk-updated")
    true(isinstance(updated, list) and len(updated) == 6, f"returns the 6 updated records, got {updated!r:.200}")
    patches = nb.wire.requests("PATCH")
    eq(len(patches), 1, "one PATCH")
    eq(patches[0].request.url, f"{URL}/api/tenancy/tenants/", "PATCH on the list URL")
    eq(sorted(body_of(patches[0]), key=lambda x: x["id"]), sorted(({"id": t.id, "description": "bulk-updated"} for t in state["tenants"]), key=lambda x: x["id"]), "PATCH body")
    eq(patches[0].status_code, 200, "bulk PATCH status")
    true(isinstance(patches[0].json(), list), "bulk PATCH answers a list")
    eq({t.description for t in nb.tenancy.tenants.filter(group_id=state["group"])}, {"bulk-updated"}, "stored descriptions")


@c.check("RecordSet.update() with nothing to change sends no PATCH")
def _():
    nb.wire.clear()
    eq(nb.tenancy.tenants.filter(group_id=state["group"]).update(description="bulk-updated"), None, "update() result")
    eq(nb.wire.requests("PATCH"), [], "no PATCH")


@c.check("Endpoint.update([...]) with dicts and with changed Records")
def _():
    t = state["tenants"]
    result = nb.tenancy.tenants.update([{"id": t[0].id, "comments": "dict 0"}, {"id": t[1].id, "comments": "dict 1", "description": "d1"}])
    eq(sorted((r.id, r.comments) for r in result), sorted([(t[0].id, "dict 0"), (t[1].id, "dict 1")]), "dict update result")
    records = [nb.tenancy.tenants.get(t[2].id), nb.tenancy.tenants.get(t[3].id), nb.tenancy.tenants.get(t[4].id)]
    records[0].comments = "record 2"
    records[1].description = "record 3"
    nb.wire.clear()
    result = nb.tenancy.tenants.update(records)
    body = body_of(nb.wire.requests("PATCH")[-1])
    eq(sorted(body, key=lambda x: x["id"]), [{"id": t[2].id, "comments": "record 2"}, {"id": t[3].id, "description": "record 3"}], "only changed Records, only changed fields")
    eq(len(result), 2, "two records returned")
    stored = {x.id: x for x in nb.tenancy.tenants.filter(group_id=state["group"])}
    eq((stored[t[0].id].comments, stored[t[1].id].description, stored[t[2].id].comments, stored[t[3].id].description, stored[t[4].id].comments),
       ("dict 0", "d1", "record 2", "record 3", ""), "stored values")


@c.check("bulk update is all or none")
def _():
    t = state["tenants"]
    request_error(lambda: nb.tenancy.tenants.update([{"id": t[0].id, "description": "not stored"}, {"id": t[1].id, "name": ""}]), 400, "update with one invalid item")
    eq(nb.tenancy.tenants.get(t[0].id).description, "bulk-updated", "the valid item was not stored")


@c.check("Endpoint.delete([...]) with ids and with Records: one DELETE on the list URL")
def _():
    t = state["tenants"]
    nb.wire.clear()
    eq(nb.tenancy.tenants.delete([t[0].id, str(t[1].id)]), True, "delete([id, 'id'])")
    deletes = nb.wire.requests("DELETE")
    eq(len(deletes), 1, "one DELETE")
    eq(deletes[0].request.url, f"{URL}/api/tenancy/tenants/", "DELETE on the list URL")
    eq(body_of(deletes[0]), [{"id": t[0].id}, {"id": t[1].id}], "DELETE body")
    eq(deletes[0].status_code, 204, "bulk DELETE status")
    eq(nb.tenancy.tenants.delete([t[2], t[3]]), True, "delete([Record, Record])")
    eq(sorted(x.id for x in nb.tenancy.tenants.filter(group_id=state["group"])), sorted([t[4].id, t[5].id]), "two tenants left")


@c.check("bulk delete is all or none: a protected object gives 409 and nothing is deleted")
def _():
    t = state["tenants"]
    nb.dcim.sites.create(name="py-bulk-site", slug="py-bulk-site", tenant=t[5].id)
    err = request_error(lambda: nb.tenancy.tenants.delete([t[4].id, t[5].id]), 409, "delete with a protected tenant")
    true("detail" in err.req.json(), "409 body has detail")
    eq(sorted(x.id for x in nb.tenancy.tenants.filter(group_id=state["group"])), sorted([t[4].id, t[5].id]), "nothing deleted")


@c.check("RecordSet.delete() deletes every match in one request")
def _():
    nb.dcim.sites.get(slug="py-bulk-site").delete()
    nb.wire.clear()
    eq(nb.tenancy.tenants.filter(group_id=state["group"]).delete(), True, "RecordSet.delete()")
    eq(len(nb.wire.requests("DELETE")), 1, "one DELETE")
    eq(nb.tenancy.tenants.count(group_id=state["group"]), 0, "none left")


@c.check("RecordSet update and delete across pages (1,500 tags)")
def _():
    made = nb.extras.tags.create([{"name": f"py-bulk-tag-{i:04d}", "slug": f"py-bulk-tag-{i:04d}"} for i in range(1500)])
    eq(len(made), 1500, "bulk create")
    nb.wire.clear()
    updated = nb.extras.tags.filter(name__isw="py-bulk-tag-").update(color="00ff00", description="many")
    eq(len(updated), 1500, "records updated")
    eq(len(nb.wire.requests("GET")), 2, "two pages read")
    eq(len(nb.wire.requests("PATCH")), 1, "one PATCH with 1,500 items")
    eq({(t.color, t.description) for t in nb.extras.tags.filter(name__isw="py-bulk-tag-")}, {("00ff00", "many")}, "stored values")
    eq(nb.extras.tags.filter(name__isw="py-bulk-tag-").delete(), True, "delete()")
    eq(nb.extras.tags.count(name__isw="py-bulk-tag-"), 0, "none left")


c.done()
