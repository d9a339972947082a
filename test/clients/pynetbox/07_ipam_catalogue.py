"""pynetbox on the IPAM catalogue: RIR -> aggregate -> prefix -> IP range -> available IPs of the range,
ASNs and ASN ranges (available-asns), route targets on a VRF, FHRP groups with an interface assignment and
a virtual IP, service templates, and a VLAN group's available VLANs."""
import pynetbox
from pynetbox.core.endpoint import DetailEndpoint

from _harness import URL, Checks, State, api, eq, raises, true

c = Checks("ipam catalogue")
nb = c.watch(api())
state = State()


@c.check("RIR -> aggregate -> prefix -> IP range")
def _():
    rir = nb.ipam.rirs.create(name="py-rir", slug="py-rir", is_private=True)
    agg = nb.ipam.aggregates.create(prefix="10.200.0.0/16", rir=rir.id, date_added="2024-03-01")
    eq((str(agg), agg.rir.id, agg.family.value), ("10.200.0.0/16", rir.id, 4), "aggregate")
    eq(nb.ipam.rirs.get(rir.id).aggregate_count, 1, "aggregate_count")
    prefix = nb.ipam.prefixes.create(prefix="10.200.1.0/24", status="active")
    eq(nb.ipam.aggregates.get(contains="10.200.1.0/24").id, agg.id, "aggregates.get(contains=)")
    rng = nb.ipam.ip_ranges.create(start_address="10.200.1.100/24", end_address="10.200.1.103/24", status="active")
    eq((str(rng), rng.size), ("10.200.1.100-103/24", 4), "range str() and size")
    eq(nb.ipam.ip_ranges.get(parent=str(prefix)).id, rng.id, "ip_ranges.get(parent=)")
    state.update(rir=rir, range=rng)


@c.check("ip_range.available_ips: list, create, AllocationError")
def _():
    rng = state["range"]
    nb.ipam.ip_addresses.create(address="10.200.1.101/24")
    eq([str(a) for a in rng.available_ips.list()], ["10.200.1.100/24", "10.200.1.102/24", "10.200.1.103/24"], "free addresses")
    get = nb.wire.requests("GET")[-1]
    eq(get.request.url.split("?")[0], f"{URL}/api/ipam/ip-ranges/{rng.id}/available-ips/", "detail route URL")
    ip = rng.available_ips.create({"description": "from the range"})
    eq((str(ip), ip.description), ("10.200.1.100/24", "from the range"), "first free")
    two = rng.available_ips.create([{}, {}])
    eq([str(a) for a in two], ["10.200.1.102/24", "10.200.1.103/24"], "two more")
    raises(pynetbox.AllocationError, lambda: rng.available_ips.create({}), "range exhausted")


@c.check("ASNs, ASN ranges and available-asns; sites with ASNs")
def _():
    rir = state["rir"]
    asn = nb.ipam.asns.create(asn=65010, rir=rir.id, description="edge")
    eq(str(asn), "AS65010", "str(asn)")
    rng = nb.ipam.asn_ranges.create(name="py-asns", slug="py-asns", rir=rir.id, start=65010, end=65013)
    free = DetailEndpoint(rng, "available-asns").list()
    eq([a["asn"] if isinstance(a, dict) else a.asn for a in free], [65011, 65012, 65013], "free ASNs")
    made = DetailEndpoint(rng, "available-asns", custom_return=pynetbox.core.response.Record).create([{}, {}])
    eq(sorted(a.asn for a in made), [65011, 65012], "allocated ASNs")
    site = nb.dcim.sites.create(name="py-asn-site", slug="py-asn-site", asns=[asn.id])
    eq([a.id for a in site.asns], [asn.id], "site.asns")
    eq(nb.dcim.sites.get(asn_id=asn.id).id, site.id, "sites.get(asn_id=)")
    eq(nb.ipam.asns.get(asn.id).site_count, 1, "site_count")


@c.check("route targets imported and exported by a VRF")
def _():
    rt = nb.ipam.route_targets.create(name="65010:1")
    vrf = nb.ipam.vrfs.create(name="py-rt-vrf", rd="65010:1", import_targets=[rt.id], export_targets=[rt.id])
    eq(([t.name for t in vrf.import_targets], [t.name for t in vrf.export_targets]), (["65010:1"], ["65010:1"]), "targets")
    eq(nb.ipam.vrfs.get(import_target_id=rt.id).id, vrf.id, "vrfs.get(import_target_id=)")
    eq(nb.ipam.route_targets.get(exporting_vrf_id=vrf.id).id, rt.id, "route_targets.get(exporting_vrf_id=)")


@c.check("FHRP group, assignment to an interface and a virtual IP")
def _():
    site = nb.dcim.sites.create(name="py-fhrp-site", slug="py-fhrp-site")
    mfr = nb.dcim.manufacturers.create(name="py-fhrp-mfr", slug="py-fhrp-mfr")
    dtype = nb.dcim.device_types.create(manufacturer=mfr.id, model="PyFhrp", slug="py-fhrp")
    role = nb.dcim.device_roles.create(name="py-fhrp-role", slug="py-fhrp-role")
    device = nb.dcim.devices.create(name="py-fhrp-dev", device_type=dtype.id, device_role=role.id, site=site.id)
    iface = nb.dcim.interfaces.create(device=device.id, name="vlan10", type="virtual")
    group = nb.ipam.fhrp_groups.create(protocol="vrrp3", group_id=10, auth_type="plaintext", auth_key="k")
    eq(str(group), "VRRPv3: 10", "str(group)")
    assignment = nb.ipam.fhrp_group_assignments.create(group=group.id, interface_type="dcim.interface", interface_id=iface.id, priority=150)
    eq((assignment.group.id, assignment.interface.id, assignment.priority), (group.id, iface.id, 150), "assignment")
    vip = nb.ipam.ip_addresses.create(address="10.200.10.1/24", role="vrrp", assigned_object_type="ipam.fhrpgroup", assigned_object_id=group.id)
    again = nb.ipam.ip_addresses.create(address="10.200.10.1/24", role="vrrp")
    true(again.id != vip.id, "a second VRRP address with the same host is accepted")
    eq([a.id for a in nb.ipam.fhrp_groups.get(group.id).ip_addresses], [vip.id], "group.ip_addresses")
    eq(str(nb.ipam.fhrp_groups.get(group.id)), "VRRPv3: 10 (10.200.10.1/24)", "str(group) names its first address, as NetBox")
    eq([g.id for g in nb.ipam.fhrp_groups.filter(related_ip=again.id)], [group.id], "fhrp_groups.filter(related_ip=)")
    eq(nb.dcim.interfaces.get(iface.id).count_fhrp_groups, 1, "count_fhrp_groups")


@c.check("service templates and vlan_group.available_vlans")
def _():
    tmpl = nb.ipam.service_templates.create(name="py-https", protocol="tcp", ports=[443])
    eq((tmpl.protocol.value, tmpl.ports), ("tcp", [443]), "template")
    eq(nb.ipam.service_templates.get(port=443).id, tmpl.id, "service_templates.get(port=)")
    group = nb.ipam.vlan_groups.create(name="py-avail", slug="py-avail", min_vid=300, max_vid=301)
    eq([v.vid for v in group.available_vlans.list()], [300, 301], "free VIDs")
    vlan = group.available_vlans.create({"name": "py-next"})
    eq((vlan.vid, vlan.name, vlan.group.id), (300, "py-next", group.id), "allocated VLAN")


c.done()
