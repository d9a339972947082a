"""pynetbox on circuits, contacts and L2VPNs: a provider with an account, a circuit type, a circuit with its
A and Z terminations (termination_a/_z on the circuit), a contact assigned to a site (and the site found
by contact), an L2VPN with route targets and terminations on a VLAN and an interface.

pynetbox 7.0.0 predates the vpn application, so the script reaches it as pynetbox.core.app.App(nb, "vpn"),
as a user of that version would."""
from pynetbox.core.app import App

from _harness import Checks, State, api, eq, request_error, true

c = Checks("circuits, contacts, vpn")
nb = c.watch(api())
state = State()


@c.check("provider, provider account, circuit type and circuit")
def _():
    provider = nb.circuits.providers.create(name="py-transit", slug="py-transit", description="IP transit")
    account = nb.circuits.provider_accounts.create(provider=provider.id, account="py-acc-1", name="Main")
    ctype = nb.circuits.circuit_types.create(name="py-internet", slug="py-internet", color="336699")
    tenant = nb.tenancy.tenants.create(name="py-circuit-tenant", slug="py-circuit-tenant")
    circuit = nb.circuits.circuits.create(cid="PY-CID-1", provider=provider.id, provider_account=account.id, type={"slug": "py-internet"},
                                          tenant=tenant.id, status="provisioning", commit_rate=100000, install_date="2024-01-15")
    eq((str(circuit), circuit.provider.id, circuit.provider_account.id, circuit.type.id), ("PY-CID-1", provider.id, account.id, ctype.id), "circuit")
    eq((circuit.status.value, circuit.commit_rate, circuit.install_date), ("provisioning", 100000, "2024-01-15"), "circuit fields")
    eq(account.display, "py-acc-1 (Main)", "account display")
    eq(nb.circuits.circuits.get(cid="PY-CID-1", provider="py-transit").id, circuit.id, "get(cid=, provider=<slug>)")
    state.update(provider=provider, circuit=circuit, tenant=tenant)


@c.check("circuit terminations A (site) and Z (provider network), shown on the circuit")
def _():
    circuit, provider = state["circuit"], state["provider"]
    site = nb.dcim.sites.create(name="py-circuit-site", slug="py-circuit-site")
    network = nb.circuits.provider_networks.create(provider=provider.id, name="py-mpls")
    a = nb.circuits.circuit_terminations.create(circuit=circuit.id, term_side="A", site=site.id, port_speed=1000000, xconnect_id="XC-1")
    z = nb.circuits.circuit_terminations.create(circuit=circuit.id, term_side="Z", provider_network=network.id)
    eq((a.term_side, str(a), a.site.id), ("A", "PY-CID-1", site.id), "termination A")
    fresh = nb.circuits.circuits.get(circuit.id)
    eq((fresh.termination_a.id, fresh.termination_a.site.id, fresh.termination_a.port_speed), (a.id, site.id, 1000000), "termination_a")
    eq((fresh.termination_z.id, fresh.termination_z.provider_network.id), (z.id, network.id), "termination_z")
    eq([t.id for t in nb.circuits.circuit_terminations.filter(circuit_id=circuit.id)], [a.id, z.id], "terminations by circuit")
    eq([x.id for x in nb.circuits.circuits.filter(site_id=site.id)], [circuit.id], "circuits by site")
    eq([x.id for x in nb.circuits.providers.filter(site_id=site.id)], [provider.id], "providers by their circuits' sites")
    eq(nb.dcim.sites.get(site.id).circuit_count, 1, "site circuit_count")
    eq(nb.circuits.providers.get(provider.id).circuit_count, 1, "provider circuit_count")
    request_error(lambda: nb.circuits.circuit_terminations.create(circuit=circuit.id, term_side="A"), 400, "neither site nor provider network")
    a.port_speed = 10000000
    eq(a.save(), True, "save() a termination")
    eq(nb.circuits.circuits.get(circuit.id).termination_a.port_speed, 10000000, "termination_a follows")
    state["site"] = site


@c.check("a contact assigned to a site; the site found by contact, role and group")
def _():
    site = state["site"]
    group = nb.tenancy.contact_groups.create(name="py-noc", slug="py-noc")
    role = nb.tenancy.contact_roles.create(name="py-ops", slug="py-ops")
    contact = nb.tenancy.contacts.create(name="py-Ada", group=group.id, email="ada@example.net", phone="+1 555 0100")
    assignment = nb.tenancy.contact_assignments.create(content_type="dcim.site", object_id=site.id, contact=contact.id, role=role.id, priority="primary")
    eq((assignment.content_type, assignment.object_id, assignment.object.id), ("dcim.site", site.id, site.id), "generic object")
    eq((assignment.contact.id, assignment.role.id, assignment.priority.value), (contact.id, role.id, "primary"), "assignment")
    for name, value in (("contact", contact.id), ("contact_role", role.id), ("contact_group", group.id)):
        eq([s.id for s in nb.dcim.sites.filter(**{name: value})], [site.id], f"sites filtered by {name}")
    eq([a.id for a in nb.tenancy.contact_assignments.filter(content_type="dcim.site", object_id=site.id)], [assignment.id], "assignments of the site")
    request_error(lambda: nb.tenancy.contact_assignments.create(content_type="ipam.prefix", object_id=1, contact=contact.id, role=role.id), 400, "a prefix takes no contacts")


@c.check("L2VPN with route targets, terminated on a VLAN and an interface")
def _():
    vpn = App(nb, "vpn")
    rt = nb.ipam.route_targets.create(name="65001:100")
    l2vpn = vpn.l2vpns.create(name="py-evpn", slug="py-evpn", type="vxlan-evpn", identifier=5100, import_targets=[rt.id], export_targets=[rt.id], tenant=state["tenant"].id)
    eq((l2vpn.type.value, l2vpn.identifier, [t.id for t in l2vpn.import_targets]), ("vxlan-evpn", 5100, [rt.id]), "l2vpn")
    vlan = nb.ipam.vlans.create(vid=510, name="py-l2vpn-vlan")
    mfr = nb.dcim.manufacturers.create(name="py-vpn-mfr", slug="py-vpn-mfr")
    dtype = nb.dcim.device_types.create(manufacturer=mfr.id, model="PyVpn", slug="py-vpn")
    drole = nb.dcim.device_roles.create(name="py-vpn-role", slug="py-vpn-role")
    device = nb.dcim.devices.create(name="py-vpn-dev", device_type=dtype.id, device_role=drole.id, site=state["site"].id)
    iface = nb.dcim.interfaces.create(device=device.id, name="eth9", type="10gbase-x-sfpp")
    t_vlan = vpn.l2vpn_terminations.create(l2vpn=l2vpn.id, assigned_object_type="ipam.vlan", assigned_object_id=vlan.id)
    t_iface = vpn.l2vpn_terminations.create(l2vpn=l2vpn.id, assigned_object_type="dcim.interface", assigned_object_id=iface.id)
    eq((t_vlan.assigned_object.id, t_iface.assigned_object.id), (vlan.id, iface.id), "assigned objects")
    eq(nb.ipam.vlans.get(vlan.id).l2vpn_termination.id, t_vlan.id, "vlan.l2vpn_termination")
    eq(nb.dcim.interfaces.get(iface.id).l2vpn_termination.l2vpn.id, l2vpn.id, "interface.l2vpn_termination")
    eq(sorted(t.id for t in vpn.l2vpn_terminations.filter(l2vpn_id=l2vpn.id)), sorted([t_vlan.id, t_iface.id]), "terminations by l2vpn")
    eq([v.id for v in nb.ipam.vlans.filter(l2vpn_id=l2vpn.id)], [vlan.id], "vlans by l2vpn")
    request_error(lambda: vpn.l2vpn_terminations.create(l2vpn=l2vpn.id, assigned_object_type="ipam.vlan", assigned_object_id=vlan.id), 400, "a VLAN terminates one L2VPN")
    true(t_vlan.delete(), "delete a termination")
    eq(nb.ipam.vlans.get(vlan.id).l2vpn_termination, None, "no termination left on the VLAN")


c.done()
