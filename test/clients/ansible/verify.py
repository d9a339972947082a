"""After a playbook ran (twice), check through the API what it stored: `verify.py <playbook name>`.

Prints ok/FAIL lines like the pynetbox scenarios (it uses their helper, test/clients/pynetbox/_harness.py).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pynetbox"))

from _harness import Checks, api, eq, true  # noqa: E402

PLAYBOOK = sys.argv[1] if len(sys.argv) > 1 else ""
c = Checks(f"ansible {PLAYBOOK}")
nb = c.watch(api())


def one(endpoint, what, **filters):
    found = list(endpoint.filter(**filters))
    eq(len(found), 1, f"{what}: objects matching {filters}")
    return found[0]


def slugs(records):
    return sorted(r.slug for r in records)


def verify_01_sites():
    @c.check("stored tags (slug from name, color lowercased)")
    def _():
        core = one(nb.extras.tags, "tag", name="Ans Core")
        eq((core.slug, core.color, core.description), ("ans-core", "ff5722", "core network"), "Ans Core")
        edge = one(nb.extras.tags, "tag", name="Ans Edge")
        eq((edge.slug, edge.color), ("ans-edge", "2196f3"), "Ans Edge")

    @c.check("stored tenant (description stripped, tags)")
    def _():
        tenant = one(nb.tenancy.tenants, "tenant", name="Ans Tenant")
        eq((tenant.slug, tenant.description, tenant.comments), ("ans-tenant", "owned by the network team", "created by Ansible"), "tenant")
        eq(slugs(tenant.tags), ["ans-core"], "tenant tags")

    @c.check("stored site A with every field given")
    def _():
        site = one(nb.dcim.sites, "site", name="Ans Site A")
        eq((site.slug, site.status.value, site.tenant.slug), ("ans-site-a", "active", "ans-tenant"), "slug, status, tenant")
        eq((site.facility, site.time_zone, site.description, site.physical_address, site.comments),
           ("Hall 1", "America/New_York", "first site", "1 Main Street", "managed by Ansible"), "text fields")
        eq((site.latitude, site.longitude), (40.712776, -74.005974), "latitude, longitude")
        eq(slugs(site.tags), ["ans-core", "ans-edge"], "tags")

    @c.check("stored site B and no duplicates after two runs")
    def _():
        site = one(nb.dcim.sites, "site", name="Ans Site B")
        eq((site.slug, site.status.value, site.tenant), ("ans-site-b", "planned", None), "site B")
        eq(nb.dcim.sites.count(name__isw="Ans Site"), 2, "sites named Ans Site*")


def verify_02_dcim():
    @c.check("stored manufacturer, device type and device role")
    def _():
        mfr = one(nb.dcim.manufacturers, "manufacturer", name="Ans Vendor")
        eq((mfr.slug, mfr.description), ("ans-vendor", "switch vendor"), "manufacturer")
        dtype = one(nb.dcim.device_types, "device type", slug="ans-switch-48")
        eq((dtype.model, dtype.manufacturer.id, dtype.part_number, float(dtype.u_height), dtype.is_full_depth),
           ("Ans Switch 48", mfr.id, "AS-48", 1.0, False), "device type")
        role = one(nb.dcim.device_roles, "device role", name="Ans Leaf")
        eq((role.slug, role.color, role.vm_role, role.description), ("ans-leaf", "00aa00", False, "leaf switches"), "device role")

    @c.check("stored devices with their relations")
    def _():
        for name in ("ans-leaf1", "ans-leaf2"):
            dev = one(nb.dcim.devices, "device", name=name)
            eq((dev.device_type.slug, dev.device_role.slug, dev.site.slug, dev.tenant.slug, dev.status.value, dev.serial, dev.description),
               ("ans-switch-48", "ans-leaf", "ans-site-a", "ans-tenant", "active", f"SN-{name}", "leaf switch"), name)
            eq(slugs(dev.tags), ["ans-core"], f"{name} tags")
        spare = one(nb.dcim.devices, "device", name="ans-spare")
        eq((spare.site.slug, spare.status.value), ("ans-site-b", "planned"), "ans-spare")
        eq(nb.dcim.devices.count(name__isw="ans-"), 3, "devices named ans-*")

    @c.check("stored interfaces (type from its label, MAC uppercased)")
    def _():
        eth1 = one(nb.dcim.interfaces, "interface", device="ans-leaf1", name="Ethernet1")
        eq((eth1.type.value, eth1.mtu, eth1.mac_address, eth1.enabled, eth1.mgmt_only, eth1.description),
           ("1000base-t", 9000, "00:11:22:AA:BB:01", True, False, "uplink"), "ans-leaf1 Ethernet1")
        mgmt = one(nb.dcim.interfaces, "interface", device="ans-leaf1", name="mgmt0")
        eq((mgmt.type.value, mgmt.mgmt_only, mgmt.mac_address), ("1000base-t", True, "00:11:22:AA:BB:02"), "ans-leaf1 mgmt0")
        other = one(nb.dcim.interfaces, "interface", device="ans-leaf2", name="Ethernet1")
        eq((other.type.value, other.mtu, other.enabled), ("10gbase-x-sfpp", 9216, False), "ans-leaf2 Ethernet1")


def verify_03_ipam():
    @c.check("stored VLAN")
    def _():
        vlan = one(nb.ipam.vlans, "VLAN", name="ans-vlan100")
        eq((vlan.vid, vlan.site.slug, vlan.tenant.slug, vlan.status.value, vlan.description), (100, "ans-site-a", "ans-tenant", "active", "servers"), "VLAN")
        eq(slugs(vlan.tags), ["ans-edge"], "VLAN tags")

    @c.check("stored prefixes")
    def _():
        prefix = one(nb.ipam.prefixes, "prefix", prefix="10.80.0.0/24")
        eq((prefix.site.slug, prefix.tenant.slug, prefix.vlan.name, prefix.status.value, prefix.description, prefix.is_pool),
           ("ans-site-a", "ans-tenant", "ans-vlan100", "active", "server network", False), "10.80.0.0/24")
        eq(slugs(prefix.tags), ["ans-edge"], "prefix tags")
        container = one(nb.ipam.prefixes, "prefix", prefix="10.80.0.0/16")
        eq(container.status.value, "container", "10.80.0.0/16 status")

    @c.check("stored IP addresses (one on an interface, one with a role)")
    def _():
        ip = one(nb.ipam.ip_addresses, "IP address", address="10.80.0.10/24")
        iface = one(nb.dcim.interfaces, "interface", device="ans-leaf1", name="Ethernet1")
        eq((ip.assigned_object_type, ip.assigned_object_id, ip.status.value, ip.dns_name, ip.description, ip.tenant.slug),
           ("dcim.interface", iface.id, "active", "leaf1.example.com", "leaf1 uplink", "ans-tenant"), "10.80.0.10/24")
        loop = one(nb.ipam.ip_addresses, "IP address", address="10.80.255.1/32")
        eq((loop.status.value, loop.role.value), ("reserved", "loopback"), "10.80.255.1/32")

    @c.check("stored access interface on the VLAN")
    def _():
        eth2 = one(nb.dcim.interfaces, "interface", device="ans-leaf2", name="Ethernet2")
        vlan = one(nb.ipam.vlans, "VLAN", name="ans-vlan100")
        eq((eth2.mode.value, eth2.untagged_vlan.id), ("access", vlan.id), "ans-leaf2 Ethernet2")


def verify_04_webhook():
    @c.check("stored webhook")
    def _():
        hook = one(nb.extras.webhooks, "webhook", name="ans-hook1")
        eq((hook.content_types, hook.type_create, hook.type_update, hook.type_delete), (["dcim.device"], True, True, False), "events")
        eq((hook.payload_url, hook.http_method, hook.http_content_type, hook.enabled, hook.ssl_verification),
           ("https://hooks.example.com/netledger", "POST", "application/json", True, True), "delivery")

    @c.check("the 3.6 webhook fields are mapped onto an event rule of the same name")
    def _():
        hook = one(nb.extras.webhooks, "webhook", name="ans-hook1")
        rule = one(nb.extras.event_rules, "event rule", name="ans-hook1")
        eq((rule.content_types, rule.type_create, rule.type_update, rule.type_delete, rule.enabled), (["dcim.device"], True, True, False, True), "rule triggers")
        eq((rule.action_type.value, rule.action_object_type, rule.action_object_id), ("webhook", "extras.webhook", hook.id), "rule action")

    @c.check("stored export template and custom link")
    def _():
        template = one(nb.extras.export_templates, "export template", name="ans-device-names")
        eq((template.content_types, template.mime_type, template.file_extension, template.as_attachment), (["dcim.device"], "text/plain", "txt", False), "export template")
        link = one(nb.extras.custom_links, "custom link", name="ans-site-wiki")
        eq((link.content_types, link.weight, link.group_name, link.button_class.value, link.new_window),
           (["dcim.site"], 50, "Docs", "blue", True), "custom link")


def verify_30_cables():
    @c.check("stored cable with every field, found again by its terminations")
    def _():
        e1 = one(nb.dcim.interfaces, "interface", device="ans-cab-sw1", name="Ethernet1")
        e2 = one(nb.dcim.interfaces, "interface", device="ans-cab-sw2", name="Ethernet1")
        cable = one(nb.dcim.cables, "cable", termination_a_type="dcim.interface", termination_a_id=e1.id, termination_b_type="dcim.interface", termination_b_id=e2.id)
        eq((cable.type, cable.status.value, cable.label, cable.color, cable.length, cable.length_unit.value, cable.description),
           ("cat6", "planned", "ans-cable-1", "abcdef", 30, "m", "switch to switch"), "cable fields")
        eq(slugs(cable.tags), ["ans-cable-tag"], "tags")
        eq(([t.id for t in cable.a_terminations], [t.id for t in cable.b_terminations]), ([e1.id], [e2.id]), "terminations")
        eq(([p.id for p in e1.link_peers], e1.cable.id), ([e2.id], cable.id), "the interface's link peer and cable")
        eq(([e.id for e in e1.connected_endpoints], e1.connected_endpoints_reachable), ([e2.id], False), "connected, not reachable while planned")

    @c.check("one cable per interface pair after two runs")
    def _():
        eq(nb.dcim.cables.count(device="ans-cab-sw1"), 2, "cables of ans-cab-sw1")

def verify_05_ipam_catalogue():
    @c.check("stored RIR, aggregate and prefix inside it")
    def _():
        rir = one(nb.ipam.rirs, "RIR", slug="ans-rir")
        eq((rir.name, rir.is_private), ("Ans RIR", True), "RIR")
        agg = one(nb.ipam.aggregates, "aggregate", prefix="10.90.0.0/16")
        eq((agg.rir.id, str(agg.date_added), agg.description), (rir.id, "2024-01-18", "lab space"), "aggregate")
        eq(nb.ipam.aggregates.get(contains="10.90.1.0/24").id, agg.id, "the prefix lies in the aggregate")

    @c.check("stored ASN and route targets on the VRF")
    def _():
        asn = one(nb.ipam.asns, "ASN", asn=4200000001)
        eq((asn.rir.slug, asn.description, str(asn)), ("ans-rir", "lab AS", "AS4200000001 (64086.59905)"), "ASN")
        vrf = one(nb.ipam.vrfs, "VRF", name="ans-vrf-rt")
        eq(sorted(t.name for t in vrf.import_targets), ["65090:1", "65090:2"], "import targets")
        eq([t.name for t in vrf.export_targets], ["65090:1"], "export targets")
        eq(nb.ipam.route_targets.count(name__isw="65090:"), 2, "no duplicate targets")

    @c.check("stored FHRP group and its assignment")
    def _():
        group = one(nb.ipam.fhrp_groups, "FHRP group", group_id=90)
        eq((group.protocol.value, group.auth_type.value, group.auth_key), ("vrrp2", "md5", "ans-secret"), "group")
        assignment = one(nb.ipam.fhrp_group_assignments, "assignment", group_id=group.id)
        eq((assignment.interface.name, assignment.interface.device.name, assignment.priority), ("Ethernet1", "ans-leaf1", 200), "assignment")

    @c.check("stored service template and VLAN group")
    def _():
        tmpl = one(nb.ipam.service_templates, "service template", name="ans-https")
        eq((tmpl.protocol.value, tmpl.ports), ("tcp", [443, 8443]), "template")
        group = one(nb.ipam.vlan_groups, "VLAN group", name="ans-vlan-pool")
        eq((group.min_vid, group.max_vid), (500, 599), "VID range")


def verify_20_circuits():
    @c.check("stored provider, network, circuit type and circuit")
    def _():
        provider = one(nb.circuits.providers, "provider", name="Ans Transit")
        eq((provider.slug, provider.description, provider.comments), ("ans-transit", "upstream transit", "contract 42"), "provider")
        network = one(nb.circuits.provider_networks, "provider network", name="Ans MPLS")
        eq((network.provider.id, network.service_id), (provider.id, "SVC-7"), "provider network")
        ctype = one(nb.circuits.circuit_types, "circuit type", name="Ans Internet")
        circuit = one(nb.circuits.circuits, "circuit", cid="ANS-CID-1")
        eq((circuit.provider.id, circuit.type.id, circuit.status.value, circuit.commit_rate, circuit.install_date, circuit.description),
           (provider.id, ctype.id, "active", 200000, "2024-02-01", "main uplink"), "circuit")

    @c.check("stored terminations A and Z, shown on the circuit; no duplicates")
    def _():
        circuit = one(nb.circuits.circuits, "circuit", cid="ANS-CID-1")
        a = one(nb.circuits.circuit_terminations, "termination A", circuit_id=circuit.id, term_side="A")
        eq((a.site.slug, a.port_speed, a.upstream_speed, a.xconnect_id, a.pp_info), ("ans-circuit-site", 1000000, 500000, "XC-ANS-1", "PP1 port 3"), "A")
        z = one(nb.circuits.circuit_terminations, "termination Z", circuit_id=circuit.id, term_side="Z")
        eq((z.site, z.provider_network.name), (None, "Ans MPLS"), "Z")
        eq((circuit.termination_a.id, circuit.termination_z.id), (a.id, z.id), "termination_a/_z")

    @c.check("stored contact group, role and contact")
    def _():
        group = one(nb.tenancy.contact_groups, "contact group", name="Ans NOC")
        eq((group.slug, group.description), ("ans-noc", "network operations"), "group")
        one(nb.tenancy.contact_roles, "contact role", slug="ans-operations")
        contact = one(nb.tenancy.contacts, "contact", name="Ans Grace")
        eq((contact.title, contact.phone, contact.email), ("Engineer", "+1 555 0101", "grace@example.net"), "contact")

    @c.check("stored L2VPN with its route targets and its VLAN termination")
    def _():
        l2vpn = one(nb.ipam.l2vpns, "L2VPN (at NetBox 3.6's path)", name="Ans EVPN")
        eq((l2vpn.type.value, l2vpn.identifier, l2vpn.description), ("vxlan-evpn", 7007, "tenant fabric"), "l2vpn")
        eq(([t.name for t in l2vpn.import_targets], [t.name for t in l2vpn.export_targets]), (["65002:7"], ["65002:7"]), "route targets")
        vlan = one(nb.ipam.vlans, "VLAN", name="ans-l2vpn-vlan")
        term = one(nb.ipam.l2vpn_terminations, "termination", l2vpn_id=l2vpn.id)
        eq((term.assigned_object_type, term.assigned_object_id), ("ipam.vlan", vlan.id), "termination")
        eq(vlan.l2vpn_termination.id, term.id, "vlan.l2vpn_termination")


VERIFY = {
    "01_sites": verify_01_sites,
    "02_dcim": verify_02_dcim,
    "03_ipam": verify_03_ipam,
    "04_webhook": verify_04_webhook,
    "30_cables": verify_30_cables,
    "05_ipam_catalogue": verify_05_ipam_catalogue,
    "20_circuits": verify_20_circuits,
}

# The dcim playbooks' checks live beside this file (verify_dcim.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_dcim import checks as dcim_checks  # noqa: E402

VERIFY.update(dcim_checks(c, nb, one))

if PLAYBOOK not in VERIFY:
    @c.check(f"verify.py knows playbook {PLAYBOOK!r}")
    def _():
        raise AssertionError(f"add a verify function for {PLAYBOOK!r} to test/clients/ansible/verify.py")
else:
    VERIFY[PLAYBOOK]()
c.done()
