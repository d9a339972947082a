"""pynetbox on the physical catalogue: a device type imported as the device-type library does it (the
type, then each kind of template in one bulk create), a device built from it, a module installed in a
bay ({module} in names), a blade in a device bay, a virtual chassis, and a rule refused with a 400."""
from _harness import Checks, State, api, eq, request_error

c = Checks("dcim templates")
nb = c.watch(api())
state = State()


@c.check("device type with templates created in bulk, counted on the type")
def _():
    mfr = nb.dcim.manufacturers.create(name="py-dcim-mfr", slug="py-dcim-mfr")
    dtype = nb.dcim.device_types.create(manufacturer=mfr.id, model="PySwitch 24", slug="py-switch-24", u_height=1, subdevice_role="parent")
    nb.dcim.interface_templates.create([{"device_type": dtype.id, "name": f"ge-0/0/{i}", "type": "1000base-t"} for i in range(24)])
    nb.dcim.console_port_templates.create([{"device_type": dtype.id, "name": "con", "type": "rj-45"}])
    nb.dcim.power_port_templates.create([{"device_type": dtype.id, "name": n, "type": "iec-60320-c14", "maximum_draw": 150} for n in ("PSU0", "PSU1")])
    rear = nb.dcim.rear_port_templates.create(device_type=dtype.id, name="R0", type="mpo", positions=4)
    nb.dcim.front_port_templates.create([{"device_type": dtype.id, "name": f"F{i}", "type": "lc", "rear_port": rear.id, "rear_port_position": i} for i in (1, 2, 3, 4)])
    nb.dcim.module_bay_templates.create([{"device_type": dtype.id, "name": "PIC 0", "position": "0"}, {"device_type": dtype.id, "name": "PIC 1", "position": "1"}])
    nb.dcim.device_bay_templates.create([{"device_type": dtype.id, "name": "Slot A"}])
    dtype = nb.dcim.device_types.get(dtype.id)
    eq((dtype.interface_template_count, dtype.console_port_template_count, dtype.power_port_template_count,
        dtype.rear_port_template_count, dtype.front_port_template_count, dtype.module_bay_template_count, dtype.device_bay_template_count),
       (24, 1, 2, 1, 4, 2, 1), "template counts")
    eq(len(list(nb.dcim.interface_templates.filter(devicetype_id=dtype.id))), 24, "interface templates by devicetype_id")
    state.update(mfr=mfr, dtype=dtype)


@c.check("a device of the type gets its components")
def _():
    site = nb.dcim.sites.create(name="py-dcim-site", slug="py-dcim-site")
    role = nb.dcim.device_roles.create(name="py-dcim-role", slug="py-dcim-role")
    dev = nb.dcim.devices.create(name="py-sw1", device_type=state["dtype"].id, role=role.id, site=site.id)
    dev = nb.dcim.devices.get(dev.id)
    eq((dev.interface_count, dev.console_port_count, dev.power_port_count, dev.front_port_count, dev.module_bay_count, dev.device_bay_count),
       (24, 1, 2, 4, 2, 1), "component counts")
    front = nb.dcim.front_ports.get(device_id=dev.id, name="F3")
    eq((front.rear_port.name, front.rear_port_position), ("R0", 3), "front port mapped")
    eq([i.name for i in nb.dcim.interfaces.filter(device_id=dev.id)][:3], ["ge-0/0/0", "ge-0/0/1", "ge-0/0/2"], "natural order")
    state.update(site=site, role=role, dev=dev)


@c.check("a module in a bay gets its module type's components, {module} filled in")
def _():
    mtype = nb.dcim.module_types.create(manufacturer=state["mfr"].id, model="PyPIC-10G")
    nb.dcim.interface_templates.create([{"module_type": mtype.id, "name": f"xe-{{module}}/0/{i}", "type": "10gbase-x-sfpp"} for i in range(2)])
    bay = nb.dcim.module_bays.get(device_id=state["dev"].id, name="PIC 1")
    module = nb.dcim.modules.create(device=state["dev"].id, module_bay=bay.id, module_type=mtype.id, serial="PIC-SN-1")
    names = sorted(i.name for i in nb.dcim.interfaces.filter(device_id=state["dev"].id, module_id=module.id))
    eq(names, ["xe-1/0/0", "xe-1/0/1"], "module interfaces")
    eq(nb.dcim.module_bays.get(bay.id).installed_module.id, module.id, "installed_module")


@c.check("a blade in a device bay; a virtual chassis of two switches")
def _():
    child = nb.dcim.device_types.create(manufacturer=state["mfr"].id, model="PyBlade", slug="py-blade", u_height=0, subdevice_role="child")
    blade = nb.dcim.devices.create(name="py-blade1", device_type=child.id, role=state["role"].id, site=state["site"].id)
    bay = nb.dcim.device_bays.get(device_id=state["dev"].id, name="Slot A")
    bay.installed_device = blade.id
    bay.save()
    eq(nb.dcim.devices.get(blade.id).parent_device.id, state["dev"].id, "parent_device")
    second = nb.dcim.devices.create(name="py-sw2", device_type=state["dtype"].id, role=state["role"].id, site=state["site"].id)
    vc = nb.dcim.virtual_chassis.create(name="py-vc", master=state["dev"].id)
    second.virtual_chassis = vc.id
    second.vc_position = 2
    second.save()
    eq(nb.dcim.virtual_chassis.get(vc.id).member_count, 2, "member_count")
    eq(nb.dcim.devices.get(state["dev"].id).virtual_chassis.id, vc.id, "master joined")


@c.check("a front port beyond its rear port's positions is a 400 naming the field")
def _():
    rear = nb.dcim.rear_ports.get(device_id=state["dev"].id, name="R0")
    err = request_error(lambda: nb.dcim.front_ports.create(device=state["dev"].id, name="F9", type="lc", rear_port=rear.id, rear_port_position=9), 400, "front port position")
    eq("rear_port_position" in err.req.text, True, "error names rear_port_position")


c.done()
