"""pynetbox on IPAM: VRFs, roles, VLAN groups, VLANs, prefixes and IP addresses (str() forms, relations,
an IP assigned to an interface and made a device's primary IP), and the detail routes
prefix.available_ips / prefix.available_prefixes.

The detail-route checks run by default; NETLEDGER_CHECK_AVAILABLE=0 reports them as pending instead."""
import os

import pynetbox

from _harness import URL, Checks, State, api, body_of, eq, raises, request_error, true

AVAILABLE_ROUTES = os.environ.get("NETLEDGER_CHECK_AVAILABLE", "1") == "1"
AVAILABLE_PENDING = "available-ips/available-prefixes endpoints arrive with the IPAM catalogue"

c = Checks("ipam")
nb = c.watch(api())
state = State()


@c.check("IPAM objects: VRF, role, VLAN group, VLAN, prefix, IP address and their str()")
def _():
    vrf = nb.ipam.vrfs.create(name="py-ipam-vrf", rd="192.0.2.1:1234")
    role = nb.ipam.roles.create(name="py-ipam-role", slug="py-ipam-role")
    group = nb.ipam.vlan_groups.create(name="py-ipam-vg", slug="py-ipam-vg")
    vlan = nb.ipam.vlans.create(vid=123, name="py-ipam-vlan", group=group.id, status="active")
    prefix = nb.ipam.prefixes.create(prefix="10.70.0.0/24", vrf=vrf.id, vlan=vlan.id, role={"slug": "py-ipam-role"}, status="reserved")
    ip = nb.ipam.ip_addresses.create(address="10.70.0.5/24", vrf={"name": "py-ipam-vrf"}, dns_name="five.example.com")
    eq((str(vrf), str(vlan), str(prefix), str(ip)), ("py-ipam-vrf", "py-ipam-vlan", "10.70.0.0/24", "10.70.0.5/24"), "str() forms")
    eq((prefix.vrf.id, prefix.vlan.id, prefix.role.id, prefix.status.value), (vrf.id, vlan.id, role.id, "reserved"), "prefix relations")
    eq((prefix.family.value, ip.family.value), (4, 4), "family")
    eq(ip.vrf.id, vrf.id, "ip vrf by name")
    eq(vlan.group.id, group.id, "vlan group")
    eq(nb.ipam.prefixes.get(prefix="10.70.0.0/24", vrf_id=vrf.id).id, prefix.id, "get(prefix=, vrf_id=)")
    eq(nb.ipam.ip_addresses.get(address="10.70.0.5/24").id, ip.id, "get(address=)")
    eq(nb.ipam.vlans.get(vid=123, group_id=group.id).id, vlan.id, "get(vid=, group_id=)")
    state.update(vrf=vrf, prefix=prefix, ip=ip)


@c.check("IP address assigned to an interface (assigned_object_type/_id)")
def _():
    site = nb.dcim.sites.create(name="py-ipam-site", slug="py-ipam-site")
    mfr = nb.dcim.manufacturers.create(name="py-ipam-mfr", slug="py-ipam-mfr")
    dtype = nb.dcim.device_types.create(manufacturer=mfr.id, model="PyIpam", slug="py-ipam")
    role = nb.dcim.device_roles.create(name="py-ipam-drole", slug="py-ipam-drole")
    device = nb.dcim.devices.create(name="py-ipam-dev", device_type=dtype.id, device_role=role.id, site=site.id)
    iface = nb.dcim.interfaces.create(device=device.id, name="mgmt0", type="1000base-t", mgmt_only=True)
    ip = nb.ipam.ip_addresses.create(address="10.70.1.10/24", assigned_object_type="dcim.interface", assigned_object_id=iface.id)
    eq((ip.assigned_object_type, ip.assigned_object_id, ip.assigned_object.id), ("dcim.interface", iface.id, iface.id), "assigned object")
    eq(ip.assigned_object.device.id, device.id, "assigned_object.device")
    eq(nb.dcim.interfaces.get(iface.id).count_ipaddresses, 1, "interface count_ipaddresses")
    state.update(device=device, assigned=ip)


@c.check("device.primary_ip4 set with save()")
def _():
    device, ip = state["device"], state["assigned"]
    device.primary_ip4 = ip.id
    nb.wire.clear()
    eq(device.save(), True, "save() with primary_ip4")
    eq(body_of(nb.wire.requests("PATCH")[-1]), {"primary_ip4": ip.id}, "PATCH body")
    again = nb.dcim.devices.get(device.id)
    eq((again.primary_ip4.id, str(again.primary_ip4)), (ip.id, "10.70.1.10/24"), "primary_ip4")


@c.check("device.primary_ip (NetBox 3.x: the primary IPv6, else the IPv4)")
def _():
    again = nb.dcim.devices.get(state["device"].id)
    true("primary_ip" in dict(again), "GET /api/dcim/devices/<id>/ has primary_ip")
    eq(again.primary_ip.id, state["assigned"].id, "primary_ip")


def available(name):
    """Decorator: the check runs when AVAILABLE_ROUTES is on; otherwise it is reported as pending."""
    if AVAILABLE_ROUTES:
        return c.check(name)

    def skip(fn):
        c.pending(name, AVAILABLE_PENDING)
        return None

    return skip


@available("prefix.available_ips.list()")
def _():
    prefix = nb.ipam.prefixes.create(prefix="10.77.0.0/29", status="active")
    nb.ipam.ip_addresses.create(address="10.77.0.1/29")
    free = prefix.available_ips.list()
    eq([str(x) for x in free], [f"10.77.0.{i}/29" for i in range(2, 7)], "free addresses (network, broadcast and .1 excluded)")
    get = nb.wire.requests("GET")[-1]
    eq(get.request.url.split("?")[0], f"{URL}/api/ipam/prefixes/{prefix.id}/available-ips/", "detail route URL")
    true(isinstance(get.json(), list), "a bare JSON array")
    eq({k: get.json()[0][k] for k in ("family", "address", "vrf")}, {"family": 4, "address": "10.77.0.2/29", "vrf": None}, "item shape")
    state["pool"] = prefix


@available("prefix.available_ips.create(): one, many, then AllocationError when exhausted")
def _():
    prefix = state["pool"]
    ip = prefix.available_ips.create()
    eq(str(ip), "10.77.0.2/29", "first free address")
    eq(ip.url, f"{URL}/api/ipam/ip-addresses/{ip.id}/", "the new IP's url")
    eq(nb.wire.requests("POST")[-1].status_code, 201, "POST status")
    ip.description = "allocated"
    eq(ip.save(), True, "save() of the allocated IP")
    eq(nb.wire.requests("PATCH")[-1].request.url, f"{URL}/api/ipam/ip-addresses/{ip.id}/", "save() goes to ip-addresses")
    two = prefix.available_ips.create([{"description": "a"}, {"description": "b", "status": "reserved"}])
    eq([str(x) for x in two], ["10.77.0.3/29", "10.77.0.4/29"], "two more")
    eq(two[1].status.value, "reserved", "fields of the allocation are kept")
    ansible_style = prefix.available_ips.create({"prefix": "10.77.0.0/29", "dns_name": "x.example.com"})
    eq(str(ansible_style), "10.77.0.5/29", "unknown keys (Ansible sends prefix) are ignored")
    raises(pynetbox.AllocationError, lambda: prefix.available_ips.create([{}, {}]), "asking 2 with 1 left")
    eq(nb.wire.requests("POST")[-1].status_code, 409, "status when exhausted")
    eq([str(x) for x in prefix.available_ips.list()], ["10.77.0.6/29"], "nothing allocated by the failed request")


@available("prefix.available_prefixes.list()")
def _():
    parent = nb.ipam.prefixes.create(prefix="10.78.0.0/22", status="container")
    nb.ipam.prefixes.create(prefix="10.78.0.0/24")
    free = parent.available_prefixes.list()
    eq([str(x) for x in free], ["10.78.1.0/24", "10.78.2.0/23"], "free prefixes")
    eq({k: nb.wire.requests("GET")[-1].json()[0][k] for k in ("family", "prefix", "vrf")}, {"family": 4, "prefix": "10.78.1.0/24", "vrf": None}, "item shape")
    state["parent"] = parent


@available("prefix.available_prefixes.create(): one, many, AllocationError, 400")
def _():
    parent = state["parent"]
    child = parent.available_prefixes.create({"prefix_length": 28, "status": "reserved", "parent": "10.78.0.0/22"})
    eq((str(child), child.status.value), ("10.78.1.0/28", "reserved"), "first free /28")
    eq(child.url, f"{URL}/api/ipam/prefixes/{child.id}/", "the new prefix's url")
    many = parent.available_prefixes.create([{"prefix_length": 25}, {"prefix_length": 24}])
    eq([str(x) for x in many], ["10.78.1.128/25", "10.78.2.0/24"], "two more")
    raises(pynetbox.AllocationError, lambda: parent.available_prefixes.create({"prefix_length": 21}), "a /21 in a /22")
    request_error(lambda: parent.available_prefixes.create({}), 400, "without prefix_length")


c.done()
