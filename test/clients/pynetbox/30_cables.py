"""pynetbox on cables: nb.dcim.cables.create(a_terminations=[...], b_terminations=[...]) between
interfaces, console and power ports (str() forms "Ethernet1 <> Ethernet1"), interface.trace() through a
patch panel (front/rear ports), link peers and connected endpoints from both ends, a cable's save(),
the one-cable-per-termination rule as a RequestError, and delete."""
import pynetbox

from _harness import Checks, State, api, eq, request_error, true

c = Checks("cables")
nb = c.watch(api())
state = State()


def term(kind, obj):
    return [{"object_type": kind, "object_id": obj.id}]


@c.check("fixtures: two switches and a patch panel with console, power and front/rear ports")
def _():
    site = nb.dcim.sites.create(name="py-cab-site", slug="py-cab-site")
    mfr = nb.dcim.manufacturers.create(name="py-cab-mfr", slug="py-cab-mfr")
    dtype = nb.dcim.device_types.create(manufacturer=mfr.id, model="PyCab", slug="py-cab", u_height=1)
    role = nb.dcim.device_roles.create(name="py-cab-role", slug="py-cab-role", color="000000")
    sw1, sw2, panel = (nb.dcim.devices.create(name=n, device_role=role.id, device_type=dtype.id, site=site.id) for n in ("py-cab-sw1", "py-cab-sw2", "py-cab-panel"))
    state.update(
        sw1=sw1, sw2=sw2, panel=panel,
        e1=nb.dcim.interfaces.create(name="Ethernet1", type="1000base-t", device=sw1.id),
        e2=nb.dcim.interfaces.create(name="Ethernet1", type="1000base-t", device=sw2.id),
        u1=nb.dcim.interfaces.create(name="Uplink", type="1000base-t", device=sw1.id),
        u2=nb.dcim.interfaces.create(name="Uplink", type="1000base-t", device=sw2.id),
        console=nb.dcim.console_ports.create(name="Console", device=sw1.id),
        cs_port=nb.dcim.console_server_ports.create(name="Port 1", device=sw2.id),
        psu=nb.dcim.power_ports.create(name="PSU1", device=sw1.id),
        outlet=nb.dcim.power_outlets.create(name="outlet", device=sw2.id),
        rear=nb.dcim.rear_ports.create(name="rear", type="lc", device=panel.id, positions=1),
    )
    state["front"] = nb.dcim.front_ports.create(name="front", type="lc", device=panel.id, rear_port=state["rear"].id)


@c.check("cables.create between interfaces, console ports and power ports: str() forms")
def _():
    cable = nb.dcim.cables.create(a_terminations=term("dcim.interface", state["e1"]), b_terminations=term("dcim.interface", state["e2"]), label="py-cable-1", type="cat6", length=2.5, length_unit="m")
    console = nb.dcim.cables.create(a_terminations=term("dcim.consoleport", state["console"]), b_terminations=term("dcim.consoleserverport", state["cs_port"]))
    power = nb.dcim.cables.create(a_terminations=term("dcim.powerport", state["psu"]), b_terminations=term("dcim.poweroutlet", state["outlet"]))
    eq((str(cable), str(console), str(power)), ("Ethernet1 <> Ethernet1", "Console <> Port 1", "PSU1 <> outlet"), "str() forms")
    eq((cable.status.value, cable.type, cable.length, cable.length_unit.value), ("connected", "cat6", 2.5, "m"), "cable fields")
    eq(cable.a_terminations[0].id, state["e1"].id, "a_terminations parsed to records")
    state.update(cable=cable, power=power)


@c.check("interface.trace(), link peers and connected endpoints from both ends")
def _():
    hops = nb.dcim.interfaces.get(state["e1"].id).trace()
    eq(len(hops), 3, "one hop: near ends, cable, far ends")
    eq((hops[0][0].name, hops[0][0].device.name, hops[2][0].name, hops[2][0].device.name), ("Ethernet1", "py-cab-sw1", "Ethernet1", "py-cab-sw2"), "trace ends")
    eq(hops[1].id, state["cable"].id, "trace cable")
    for mine, theirs in (("e1", "e2"), ("e2", "e1")):
        iface = nb.dcim.interfaces.get(state[mine].id)
        eq((iface.cable.id, iface.link_peers_type, [p.id for p in iface.link_peers]), (state["cable"].id, "dcim.interface", [state[theirs].id]), f"{mine} link peers")
        eq((iface.connected_endpoints_type, [e.id for e in iface.connected_endpoints], iface.connected_endpoints_reachable), ("dcim.interface", [state[theirs].id], True), f"{mine} connected endpoints")
        true(iface._occupied, f"{mine} occupied")
    psu = nb.dcim.power_ports.get(state["psu"].id)
    eq([e.id for e in psu.connected_endpoints], [state["outlet"].id], "power port connected to the outlet")
    eq(len(psu.trace()), 3, "power port trace")


@c.check("interface.trace() through a patch panel: front port | rear port, two cables")
def _():
    nb.dcim.cables.create(a_terminations=term("dcim.interface", state["u1"]), b_terminations=term("dcim.frontport", state["front"]))
    nb.dcim.cables.create(a_terminations=term("dcim.rearport", state["rear"]), b_terminations=term("dcim.interface", state["u2"]))
    hops = nb.dcim.interfaces.get(state["u1"].id).trace()
    eq(len(hops), 6, "two hops")
    eq((type(hops[2][0]).__name__, type(hops[3][0]).__name__), ("FrontPorts", "RearPorts"), "pass-through records")
    eq((hops[0][0].name, hops[5][0].name, hops[5][0].device.name), ("Uplink", "Uplink", "py-cab-sw2"), "ends")
    eq([e.id for e in nb.dcim.interfaces.get(state["u2"].id).connected_endpoints], [state["u1"].id], "the far end sees the near end")
    true(len(nb.dcim.front_ports.get(state["front"].id).link_peers) == 1, "front port link peers")


@c.check("cable.save(), filters by termination, the one-cable-per-termination rule")
def _():
    cable = nb.dcim.cables.get(state["cable"].id)
    cable.description = "Test Value"
    true(cable.save(), "save() returns True")
    eq(nb.dcim.cables.get(state["cable"].id).description, "Test Value", "saved")
    found = nb.dcim.cables.get(termination_a_type="dcim.interface", termination_a_id=state["e1"].id, termination_b_type="dcim.interface", termination_b_id=state["e2"].id)
    eq(found.id, state["cable"].id, "found by termination_a/b filters")
    eq(nb.dcim.cables.count(device_id=state["sw1"].id), 4, "cables of a device")
    exc = request_error(lambda: nb.dcim.cables.create(a_terminations=term("dcim.interface", state["e1"]), b_terminations=term("dcim.interface", state["u2"])), 400, "a second cable on Ethernet1")
    true("a_terminations" in exc.error, f"the error names a_terminations: {exc.error}")


@c.check("delete a cable: both ends free, the trace ends")
def _():
    true(nb.dcim.cables.get(state["cable"].id).delete(), "delete")
    iface = nb.dcim.interfaces.get(state["e1"].id)
    eq((iface.cable, iface.connected_endpoints, iface.link_peers), (None, None, []), "freed")
    eq(iface.trace(), [], "no trace")


c.done()
