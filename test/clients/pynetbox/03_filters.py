"""pynetbox queries: filters with repeated keys, lookups, q, booleans, spaces, unknown parameters,
count(), len(), and choices() (OPTIONS) on sites, devices, interfaces and IP addresses."""
import pynetbox

from _harness import State, Checks, api, eq, raises, request_error, true

c = Checks("filters")
nb = c.watch(api())
state = State()


def names(records):
    return sorted(r.name for r in records)


@c.check("setup: sites, tenants, a device with interfaces, prefixes and IP addresses")
def _():
    tenant = nb.tenancy.tenants.create(name="py-flt-tenant", slug="py-flt-tenant")
    sites = nb.dcim.sites.create([
        {"name": "py-flt-alpha", "slug": "py-flt-alpha", "status": "active", "description": "north"},
        {"name": "py-flt-beta", "slug": "py-flt-beta", "status": "planned", "description": "north", "tenant": tenant.id},
        {"name": "py-flt-gamma", "slug": "py-flt-gamma", "status": "staging", "description": "", "tenant": tenant.id},
        {"name": "py-flt-delta", "slug": "py-flt-delta", "status": "active", "description": "south"},
        {"name": "Py Flt Epsilon Hall", "slug": "py-flt-epsilon", "status": "retired", "facility": "needle-facility"},
    ])
    eq(len(sites), 5, "bulk create")
    mfr = nb.dcim.manufacturers.create(name="py-flt-mfr", slug="py-flt-mfr")
    dtype = nb.dcim.device_types.create(manufacturer=mfr.id, model="PyFlt", slug="py-flt")
    role = nb.dcim.device_roles.create(name="py-flt-role", slug="py-flt-role")
    devices = nb.dcim.devices.create([
        {"name": f"py-flt-dev{i}", "device_type": dtype.id, "device_role": role.id, "site": sites[i % 2].id, "status": "active" if i % 2 else "offline"}
        for i in range(4)
    ])
    ifaces = nb.dcim.interfaces.create([
        {"device": devices[0].id, "name": "eth0", "type": "1000base-t", "enabled": True},
        {"device": devices[0].id, "name": "eth1", "type": "10gbase-x-sfpp", "enabled": False, "mgmt_only": True},
    ])
    nb.ipam.prefixes.create([{"prefix": "192.0.2.0/24", "status": "active"}, {"prefix": "198.51.100.0/24", "status": "reserved"}])
    ips = nb.ipam.ip_addresses.create([
        {"address": "192.0.2.1/24", "status": "active", "assigned_object_type": "dcim.interface", "assigned_object_id": ifaces[0].id},
        {"address": "192.0.2.10/24", "status": "reserved", "dns_name": "ten.example.com"},
        {"address": "198.51.100.7/24", "status": "active"},
    ])
    state.update(tenant=tenant, sites=sites, devices=devices, ifaces=ifaces, ips=ips)


@c.check("filter with repeated keys ORs the values")
def _():
    eq(names(nb.dcim.sites.filter(name=["py-flt-alpha", "py-flt-gamma"])), ["py-flt-alpha", "py-flt-gamma"], "name=[a, b]")
    eq(names(nb.dcim.sites.filter(slug=["py-flt-beta", "py-flt-delta"], status=["planned", "active"])), ["py-flt-beta", "py-flt-delta"], "slug=[..]&status=[..]")
    eq(names(nb.dcim.sites.filter(name__isw="py-flt-", status=["active", "planned"])), ["py-flt-alpha", "py-flt-beta", "py-flt-delta"], "status=[active, planned]")


@c.check("filter lookups: __ic, __isw, __iew, __ie, __n, __empty, id__gte")
def _():
    eq(names(nb.dcim.sites.filter(name__ic="FLT-ALP")), ["py-flt-alpha"], "name__ic")
    eq(names(nb.dcim.sites.filter(name__isw="py-flt-", name__iew="TA")), ["py-flt-beta", "py-flt-delta"], "name__isw + name__iew")
    eq(names(nb.dcim.sites.filter(name__ie="PY-FLT-GAMMA")), ["py-flt-gamma"], "name__ie")
    eq(names(nb.dcim.sites.filter(name__isw="py-flt-", status__n="active")), ["py-flt-beta", "py-flt-gamma"], "status__n")
    eq(names(nb.dcim.sites.filter(name__isw="py-flt-", description__empty=True)), ["py-flt-gamma"], "description__empty=True")
    eq(names(nb.dcim.sites.filter(name__isw="py-flt-", description__empty="false")), ["py-flt-alpha", "py-flt-beta", "py-flt-delta"], "description__empty=false")
    ids = sorted(s.id for s in state["sites"])
    eq(sorted(s.id for s in nb.dcim.sites.filter(id__gte=ids[2], id__lte=ids[3])), ids[2:4], "id__gte + id__lte")
    eq(sorted(s.id for s in nb.dcim.sites.filter(id=ids[:2])), ids[:2], "id=[a, b]")


@c.check("filters by related object: tenant slug, tenant_id, site_id, role")
def _():
    eq(names(nb.dcim.sites.filter(tenant="py-flt-tenant")), ["py-flt-beta", "py-flt-gamma"], "tenant=<slug>")
    eq(names(nb.dcim.sites.filter(tenant_id=state["tenant"].id)), ["py-flt-beta", "py-flt-gamma"], "tenant_id=<id>")
    eq(names(nb.dcim.sites.filter(name__isw="py-flt-", tenant_id="null")), ["py-flt-alpha", "py-flt-delta"], "tenant_id=null")
    eq(names(nb.dcim.devices.filter(site_id=state["sites"][1].id)), ["py-flt-dev1", "py-flt-dev3"], "devices site_id")
    eq(names(nb.dcim.devices.filter(site="py-flt-alpha", status="offline")), ["py-flt-dev0", "py-flt-dev2"], "devices site=<slug>&status")
    eq(names(nb.dcim.devices.filter(role="py-flt-role", name="py-flt-dev3")), ["py-flt-dev3"], "devices role=<slug>")
    eq(names(nb.dcim.devices.filter(device_role_id=state["devices"][0].device_role.id, name="py-flt-dev0")), ["py-flt-dev0"], "devices device_role_id (3.x name)")
    eq(names(nb.dcim.interfaces.filter(device_id=state["devices"][0].id)), ["eth0", "eth1"], "interfaces device_id")
    eq(names(nb.dcim.interfaces.filter(device="py-flt-dev0", type="1000base-t")), ["eth0"], "interfaces device=<name>&type")


@c.check("boolean filters accept True/False as pynetbox sends them")
def _():
    eq(names(nb.dcim.interfaces.filter(device_id=state["devices"][0].id, enabled=False)), ["eth1"], "enabled=False")
    eq(names(nb.dcim.interfaces.filter(device_id=state["devices"][0].id, mgmt_only=True)), ["eth1"], "mgmt_only=True")
    eq(names(nb.dcim.interfaces.filter(device_id=state["devices"][0].id, enabled=True)), ["eth0"], "enabled=True")
    assigned = sorted(str(ip) for ip in nb.ipam.ip_addresses.filter(assigned_to_interface=True))
    eq(assigned, ["192.0.2.1/24"], "ip-addresses assigned_to_interface=True")


@c.check("a value with spaces is sent as + and matches")
def _():
    eq([s.slug for s in nb.dcim.sites.filter(name="Py Flt Epsilon Hall")], ["py-flt-epsilon"], "name with spaces")
    url = nb.wire.requests("GET")[-1].request.url
    true("name=Py+Flt+Epsilon+Hall" in url, f"requests encoded spaces as + ({url})")


@c.check("q searches (positional argument of filter())")
def _():
    eq(names(nb.dcim.sites.filter("py-flt-gam")), ["py-flt-gamma"], "filter('py-flt-gam')")
    eq(names(nb.dcim.sites.filter(q="needle-facility")), ["Py Flt Epsilon Hall"], "q matches facility")
    eq(sorted(str(ip) for ip in nb.ipam.ip_addresses.filter(q="192.0.2.1/24")), ["192.0.2.1/24"], "ip-addresses q=<cidr>")
    eq(sorted(str(ip) for ip in nb.ipam.ip_addresses.filter(q="ten.example")), ["192.0.2.10/24"], "ip-addresses q=<dns name>")


@c.check("IPAM filters: address, prefix, parent, within, family")
def _():
    eq([str(ip) for ip in nb.ipam.ip_addresses.filter(address="192.0.2.10/24")], ["192.0.2.10/24"], "address=<cidr>")
    eq(sorted(str(ip) for ip in nb.ipam.ip_addresses.filter(address=["192.0.2.1/24", "198.51.100.7/24"])), ["192.0.2.1/24", "198.51.100.7/24"], "address repeated")
    eq(sorted(str(ip) for ip in nb.ipam.ip_addresses.filter(parent="192.0.2.0/24")), ["192.0.2.1/24", "192.0.2.10/24"], "parent=<prefix>")
    eq([str(p) for p in nb.ipam.prefixes.filter(prefix="198.51.100.0/24")], ["198.51.100.0/24"], "prefix=<cidr>")
    eq([str(p) for p in nb.ipam.prefixes.filter(within_include="192.0.2.0/23")], ["192.0.2.0/24"], "within_include")
    eq(sorted(str(ip) for ip in nb.ipam.ip_addresses.filter(family=4, status="reserved")), ["192.0.2.10/24"], "family=4&status")


@c.check("unknown query parameters are refused with a 400 naming them; what Ansible adds is ignored")
def _():
    err = request_error(lambda: list(nb.dcim.sites.filter(name="py-flt-alpha", no_such_filter="x")), 400, "unknown parameter")
    true("no_such_filter" in err.error, f"the 400 names the parameter ({err.error})")
    request_error(lambda: list(nb.dcim.sites.filter(name__nope="py-flt-alpha")), 400, "unknown lookup")
    # netbox_ip_address sends assigned_object beside interface_id; NetBox ignores it, and so does strict mode.
    eq(sorted(str(ip) for ip in nb.ipam.ip_addresses.filter(address="192.0.2.1/24", assigned_object="x")), ["192.0.2.1/24"], "assigned_object (Ansible)")


@c.check("count() and len()")
def _():
    eq(nb.dcim.sites.count(name__isw="py-flt-"), 4, "count(name__isw=)")
    eq(nb.dcim.sites.count("py-flt-"), 4, "count(q)")
    eq(nb.dcim.sites.count(tenant="py-flt-tenant", status="planned"), 1, "count(tenant=, status=)")
    nb.wire.clear()
    total = nb.dcim.sites.count()
    true(total >= 5, "count() of all sites")
    url = nb.wire.requests("GET")[-1].request.url
    true(url.endswith("?limit=1"), f"count() asks limit=1 ({url})")
    eq(len(nb.dcim.sites.filter(name__isw="py-flt-")), 4, "len(filter())")
    eq(len(nb.dcim.sites.all()), total, "len(all())")


def choice_values(choices, field):
    true(field in choices, f"choices() has {field!r} (got {sorted(choices)})")
    for item in choices[field]:
        true(set(item) >= {"value", "display_name"}, f"{field} choice has value and display_name: {item}")
    return {item["value"]: item["display_name"] for item in choices[field]}


@c.check("choices() on sites")
def _():
    status = choice_values(nb.dcim.sites.choices(), "status")
    eq(status.get("active"), "Active", "sites status active")
    eq(set(status), {"planned", "staging", "active", "decommissioning", "retired"}, "site statuses")
    options = nb.wire.requests("OPTIONS")
    eq(len(options), 1, "one OPTIONS request")
    eq(options[0].status_code, 200, "OPTIONS status")


@c.check("choices() on devices")
def _():
    choices = nb.dcim.devices.choices()
    eq(choice_values(choices, "status").get("offline"), "Offline", "devices status offline")
    eq(choice_values(choices, "face"), {"front": "Front", "rear": "Rear"}, "devices face")
    true("front-to-rear" in choice_values(choices, "airflow"), "devices airflow")


@c.check("choices() on interfaces")
def _():
    choices = nb.dcim.interfaces.choices()
    types = choice_values(choices, "type")
    eq(types.get("1000base-t"), "1000BASE-T (1GE)", "interface type 1000base-t")
    true("virtual" in types and "10gbase-x-sfpp" in types, "grouped interface types are flattened")
    eq(choice_values(choices, "mode"), {"access": "Access", "tagged": "Tagged", "tagged-all": "Tagged (All)"}, "interface mode")


@c.check("choices() on ip-addresses")
def _():
    choices = nb.ipam.ip_addresses.choices()
    eq(set(choice_values(choices, "status")), {"active", "reserved", "deprecated", "dhcp", "slaac"}, "ip status")
    true({"loopback", "vip", "anycast"} <= set(choice_values(choices, "role")), "ip roles")


@c.check("choices() without a write token raises ValueError (no actions)")
def _():
    anon = c.watch(api(token=None))
    raises((ValueError, pynetbox.RequestError), lambda: anon.dcim.sites.choices(), "choices() without a token")


c.done()
