"""pynetbox 7.8.0 and more of the models NetBox 4.x added, through the 4.6 base: rack types, virtual
circuits and their terminations, VLAN translation policies and rules, module type profiles, a user's
notifications and subscriptions."""
from _harness import Checks, api, eq, true

c = Checks("models46-more")
nb = c.watch(api())
TAG = "pym46m"


@c.check("nb.dcim.rack_types: a rack of a type takes the type's height and follows it")
def _():
    site = nb.dcim.sites.create(name=f"{TAG}-site", slug=f"{TAG}-site")
    maker = nb.dcim.manufacturers.create(name=f"{TAG}-maker", slug=f"{TAG}-maker")
    rtype = nb.dcim.rack_types.create(manufacturer=maker.id, model=f"{TAG}-cab", slug=f"{TAG}-cab", form_factor="4-post-cabinet", u_height=47)
    rack = nb.dcim.racks.create(name=f"{TAG}-r1", site=site.id, rack_type=rtype.id)
    eq(rack.u_height, 47, "u_height from the type")
    eq(rack.rack_type.id, rtype.id, "rack_type")
    rtype.u_height = 45
    true(rtype.save(), "save()")
    eq(nb.dcim.racks.get(rack.id).u_height, 45, "the rack follows its type")
    eq([r.id for r in nb.dcim.racks.filter(rack_type_id=rtype.id)], [rack.id], "filter rack_type_id")


@c.check("nb.circuits.virtual_circuits: a virtual circuit with a hub and a spoke on virtual interfaces")
def _():
    provider = nb.circuits.providers.create(name=f"{TAG}-carrier", slug=f"{TAG}-carrier")
    network = nb.circuits.provider_networks.create(provider=provider.id, name=f"{TAG}-mpls")
    vtype = nb.circuits.virtual_circuit_types.create(name=f"{TAG}-evpl", slug=f"{TAG}-evpl")
    vc = nb.circuits.virtual_circuits.create(cid=f"{TAG}-vc", provider_network=network.id, type=vtype.id)
    site = nb.dcim.sites.get(slug=f"{TAG}-site")
    maker = nb.dcim.manufacturers.get(slug=f"{TAG}-maker")
    dtype = nb.dcim.device_types.create(manufacturer=maker.id, model=f"{TAG}-box", slug=f"{TAG}-box")
    role = nb.dcim.device_roles.create(name=f"{TAG}-role", slug=f"{TAG}-role")
    device = nb.dcim.devices.create(name=f"{TAG}-pe", site=site.id, device_type=dtype.id, role=role.id)
    hub_if = nb.dcim.interfaces.create(device=device.id, name="ge0.10", type="virtual")
    spoke_if = nb.dcim.interfaces.create(device=device.id, name="ge0.20", type="virtual")
    hub = nb.circuits.virtual_circuit_terminations.create(virtual_circuit=vc.id, interface=hub_if.id, role="hub")
    nb.circuits.virtual_circuit_terminations.create(virtual_circuit=vc.id, interface=spoke_if.id, role="spoke")
    eq(hub.role.value, "hub", "role")
    eq(nb.circuits.virtual_circuit_terminations.count(virtual_circuit_id=vc.id), 2, "terminations of the circuit")
    true(vc.delete(), "delete()")
    eq(nb.circuits.virtual_circuit_terminations.count(virtual_circuit_id=vc.id), 0, "terminations go with the circuit")


@c.check("nb.ipam.vlan_translation_policies: a policy's rules, applied by an interface")
def _():
    policy = nb.ipam.vlan_translation_policies.create(name=f"{TAG}-policy")
    nb.ipam.vlan_translation_rules.create(policy=policy.id, local_vid=10, remote_vid=1010)
    eq([(r.local_vid, r.remote_vid) for r in nb.ipam.vlan_translation_policies.get(policy.id).rules], [(10, 1010)], "rules")
    iface = nb.dcim.interfaces.get(name="ge0.10", device=f"{TAG}-pe")
    true(iface.update({"vlan_translation_policy": policy.id}), "update() sent vlan_translation_policy")
    eq(nb.dcim.interfaces.get(iface.id).vlan_translation_policy.id, policy.id, "vlan_translation_policy")


@c.check("nb.dcim.module_type_profiles: module type attributes checked against the profile's schema")
def _():
    profile = nb.dcim.module_type_profiles.create(name=f"{TAG}-psu", schema={"properties": {"watts": {"type": "integer"}}, "required": ["watts"]})
    maker = nb.dcim.manufacturers.get(slug=f"{TAG}-maker")
    mtype = nb.dcim.module_types.create(manufacturer=maker.id, model=f"{TAG}-psu-750", profile=profile.id, attributes={"watts": 750})
    eq(dict(mtype.attributes), {"watts": 750}, "attributes")
    eq(mtype.profile.id, profile.id, "profile")
    try:
        nb.dcim.module_types.create(manufacturer=maker.id, model=f"{TAG}-psu-bad", profile=profile.id, attributes={"watts": "many"})
        true(False, "a wrong attribute is refused")
    except Exception as error:  # pynetbox.RequestError
        true("attributes" in str(getattr(error, "error", error)), "the error names attributes")


@c.check("nb.extras.subscriptions and notifications: the user's own, by object")
def _():
    me = list(nb.users.users.filter(username="admin"))[0]
    site = nb.dcim.sites.get(slug=f"{TAG}-site")
    sub = nb.extras.subscriptions.create(object_type="dcim.site", object_id=site.id, user=me.id)
    eq(sub.object.id, site.id, "object")
    note = nb.extras.notifications.create(object_type="dcim.site", object_id=site.id, user=me.id, event_type="object_updated")
    eq(note.event_type, "object_updated", "event_type")
    true(note.update({"read": "2026-01-01T00:00:00Z"}), "update() marks it read")
    true(nb.extras.notifications.get(note.id).read.startswith("2026-01-01"), "read")


c.done()
