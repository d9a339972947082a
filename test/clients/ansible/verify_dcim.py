"""Checks for the dcim playbooks (05_device_types, 06_components), used by verify.py."""
from _harness import eq, true  # noqa: F401


def checks(c, nb, one):
    def verify_05_device_types():
        @c.check("device type with its template counts")
        def _():
            dtype = one(nb.dcim.device_types, "device type", slug="ans-chassis-8")
            eq((dtype.model, float(dtype.u_height), dtype.subdevice_role.value, dtype.airflow.value), ("Ans Chassis 8", 2.0, "parent", "front-to-rear"), "device type")
            eq((dtype.console_port_template_count, dtype.console_server_port_template_count, dtype.power_port_template_count,
                dtype.power_outlet_template_count, dtype.interface_template_count, dtype.rear_port_template_count,
                dtype.front_port_template_count, dtype.device_bay_template_count), (1, 2, 2, 1, 3, 1, 2, 1), "template counts")

        @c.check("templates refer to each other (front → rear, outlet → power port)")
        def _():
            fronts = sorted((t.name, t.rear_port.name, t.rear_port_position) for t in nb.dcim.front_port_templates.filter(devicetype_id=one(nb.dcim.device_types, "type", slug="ans-chassis-8").id))
            eq(fronts, [("Port1", "Trunk1", 1), ("Port2", "Trunk1", 2)], "front port templates")
            outlet = one(nb.dcim.power_outlet_templates, "outlet template", name="OUT1")
            eq((outlet.power_port.name, outlet.feed_leg.value, outlet.type.value), ("PSU1", "A", "iec-60320-c13"), "outlet template")
            eq(one(nb.dcim.interface_templates, "interface template", name="Management1").mgmt_only, True, "mgmt template")

        @c.check("the device got every component of its type")
        def _():
            dev = one(nb.dcim.devices, "device", name="ans-chassis1")
            eq((dev.console_port_count, dev.console_server_port_count, dev.power_port_count, dev.power_outlet_count,
                dev.interface_count, dev.rear_port_count, dev.front_port_count, dev.device_bay_count), (1, 2, 2, 1, 3, 1, 2, 1), "component counts")
            eq(dev.airflow.value, "front-to-rear", "airflow inherited")
            front = one(nb.dcim.front_ports, "front port", device_id=dev.id, name="Port2")
            eq((front.rear_port.name, front.rear_port_position), ("Trunk1", 2), "front port mapping")
            eq(one(nb.dcim.power_outlets, "outlet", device_id=dev.id).power_port.name, "PSU1", "outlet feed")
            eq(nb.dcim.module_types.count(model="Ans Line Card"), 1, "module type")

    def verify_06_components():
        @c.check("the chassis member's interface, found through the master, was updated in place")
        def _():
            master = one(nb.dcim.devices, "master", name="ans-leaf1")
            member = one(nb.dcim.devices, "member", name="ans-stack2")
            names = sorted(i.name for i in nb.dcim.interfaces.filter(virtual_chassis_member_id=master.id))
            eq(("ge-2/0/1" in names, "em1" in names), (True, False), "virtual_chassis_member_id from the master")
            iface = one(nb.dcim.interfaces, "member interface", device_id=member.id, name="ge-2/0/1")
            eq(iface.description, "found through the chassis master", "description")
            eq(nb.dcim.interfaces.count(name="ge-2/0/1"), 1, "no copy on the master")

        @c.check("ports on ans-leaf1, mapped and fed")
        def _():
            leaf = one(nb.dcim.devices, "device", name="ans-leaf1")
            con = one(nb.dcim.console_ports, "console port", device_id=leaf.id)
            eq((con.name, con.type.value, con.description), ("console", "rj-45", "out-of-band console"), "console port")
            outlet = one(nb.dcim.power_outlets, "outlet", device_id=leaf.id)
            eq((outlet.name, outlet.power_port.name, outlet.feed_leg.value), ("OUT-A", "PSU-A", "B"), "power outlet")
            front = one(nb.dcim.front_ports, "front port", device_id=leaf.id)
            eq((front.name, front.rear_port.name, front.rear_port_position, front.description), ("Patch-F1", "Patch-R1", 3, "patch front"), "front port")
            eq(one(nb.dcim.rear_ports, "rear port", device_id=leaf.id).positions, 4, "rear port positions")
            eq(one(nb.dcim.console_server_ports, "console server port", name="ttyS9").type.value, "de-9", "console server port")

        @c.check("blade in the chassis bay knows its parent")
        def _():
            bay = one(nb.dcim.device_bays, "bay", name="Bay1")
            blade = one(nb.dcim.devices, "blade", name="ans-blade1")
            eq(bay.installed_device.id, blade.id, "installed device")
            eq(blade.parent_device.name, "ans-chassis1", "parent device")

        @c.check("inventory item and role")
        def _():
            item = one(nb.dcim.inventory_items, "inventory item", name="SFP-1")
            eq((item.device.name, item.manufacturer.name, item.part_id, item.serial, item.discovered),
               ("ans-leaf1", "Ans Vendor", "SFP-10G-LR", "OPT123", True), "inventory item")
            eq(one(nb.dcim.inventory_item_roles, "role", name="Ans Optic").color, "ff9800", "inventory item role")

        @c.check("power panel and feed")
        def _():
            feed = one(nb.dcim.power_feeds, "feed", name="Ans Feed A")
            eq((feed.power_panel.name, feed.voltage, feed.amperage, feed.available_power, feed.comments), ("Ans Panel 1", 230, 16, 2944, "feed A"), "feed")
            eq(one(nb.dcim.power_panels, "panel", name="Ans Panel 1").powerfeed_count, 1, "panel feed count")

        @c.check("virtual chassis of two leaves")
        def _():
            vc = one(nb.dcim.virtual_chassis, "virtual chassis", name="Ans Stack")
            eq((vc.master.name, vc.domain, vc.member_count), ("ans-leaf1", "ans-stack", 2), "virtual chassis")
            leaf2 = one(nb.dcim.devices, "device", name="ans-stack2")
            eq((leaf2.virtual_chassis.id, leaf2.vc_position, leaf2.vc_priority), (vc.id, 2, 100), "member")

    return {"05_device_types": verify_05_device_types, "06_components": verify_06_components}
