"""pynetbox 7.8.0 and the endpoints NetBox 4.x added or moved, through the 4.6 base: object types and
change records under nb.core, MAC addresses as objects and interfaces' primary MAC address, circuit groups and their assignments."""
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


@c.check("nb.dcim.mac_addresses: a MAC address object becomes an interface's primary MAC address")
def _():
    site = nb.dcim.sites.create(name=f"{TAG}-site", slug=f"{TAG}-site")
    maker = nb.dcim.manufacturers.create(name=f"{TAG}-maker", slug=f"{TAG}-maker")
    dtype = nb.dcim.device_types.create(manufacturer=maker.id, model=f"{TAG}-box", slug=f"{TAG}-box")
    role = nb.dcim.device_roles.create(name=f"{TAG}-role", slug=f"{TAG}-role")
    device = nb.dcim.devices.create(name=f"{TAG}-dev", site=site.id, device_type=dtype.id, role=role.id)
    iface = nb.dcim.interfaces.create(device=device.id, name="eth0", type="1000base-t")
    mac = nb.dcim.mac_addresses.create(mac_address="02:00:5e:10:00:01", assigned_object_type="dcim.interface", assigned_object_id=iface.id)
    eq(mac.mac_address, "02:00:5E:10:00:01", "mac_address")
    eq(mac.assigned_object.id, iface.id, "assigned_object")
    true(iface.update({"primary_mac_address": mac.id}), "update() sent primary_mac_address")
    again = nb.dcim.interfaces.get(iface.id)
    eq(again.primary_mac_address.id, mac.id, "primary_mac_address")
    eq(again.mac_address, "02:00:5E:10:00:01", "mac_address read from the primary MAC")
    eq([m.id for m in nb.dcim.mac_addresses.filter(device_id=device.id, primary=True)], [mac.id], "filter primary=True")
    mac.description = "onboard"
    true(mac.save(), "save()")
    true(mac.delete(), "delete()")
    eq(nb.dcim.interfaces.get(iface.id).primary_mac_address, None, "the interface has no primary MAC once it is deleted")


@c.check("nb.circuits.circuit_groups and circuit_group_assignments: a circuit joins a group with a priority")
def _():
    provider = nb.circuits.providers.create(name=f"{TAG}-carrier", slug=f"{TAG}-carrier")
    ctype = nb.circuits.circuit_types.create(name=f"{TAG}-transit", slug=f"{TAG}-transit")
    circuit = nb.circuits.circuits.create(cid=f"{TAG}-cid-1", provider=provider.id, type=ctype.id)
    group = nb.circuits.circuit_groups.create(name=f"{TAG}-group", slug=f"{TAG}-group")
    assignment = nb.circuits.circuit_group_assignments.create(group=group.id, member_type="circuits.circuit", member_id=circuit.id, priority="secondary")
    eq(assignment.priority.value, "secondary", "priority")
    eq(assignment.member.id, circuit.id, "member")
    eq(nb.circuits.circuit_groups.get(group.id).circuit_count, 1, "circuit_count")
    eq([a.id for a in nb.circuits.circuit_group_assignments.filter(circuit_id=circuit.id)], [assignment.id], "filter circuit_id")
    true(assignment.delete(), "delete()")


c.done()
