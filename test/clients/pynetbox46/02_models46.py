"""pynetbox 7.8.0 and the endpoints NetBox 4.x added or moved, through the 4.6 base: object types and
change records under nb.core."""
from _harness import State, Checks, api, eq, true

c = Checks("models46")
nb = c.watch(api())
state = State()
TAG = "pym46"


@c.check("nb.core.object_types: object types by app and model, with their API path")
def _():
    site = nb.core.object_types.get(app_label="dcim", model="site")
    eq(site.app_name, "DCIM", "app_name")
    eq(site.model_name_plural, "sites", "model_name_plural")
    eq(site.rest_api_endpoint, "/api/dcim/sites/", "rest_api_endpoint")
    true("change_logging" in site.features, "features")
    true(nb.core.object_types.count(app_label="dcim") > 30, "dcim object types")


@c.check("nb.core.object_changes: the change log of an object written through pynetbox")
def _():
    tenant = nb.tenancy.tenants.create(name=f"{TAG}-tenant", slug=f"{TAG}-tenant")
    tenant.description = "changed"
    tenant.save()
    changes = list(nb.core.object_changes.filter(changed_object_type="tenancy.tenant", changed_object_id=tenant.id))
    eq(sorted(ch.action.value for ch in changes), ["create", "update"], "create and update recorded")
    eq(changes[0].changed_object.id, tenant.id, "changed_object")


c.done()
