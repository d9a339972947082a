"""pynetbox on NetBox 3.7's extras: a webhook and an event rule acting on it (the 3.7 way), the
3.6 trigger fields mapped onto a rule, export templates and saved filters."""
import requests

from _harness import TOKEN, URL, Checks, State, api, eq, request_error, true

c = Checks("extras")
nb = c.watch(api())
state = State()


@c.check("webhook without triggers + event rule acting on it; a change queues a delivery")
def _():
    hook = nb.extras.webhooks.create(name="py-hook37", payload_url="http://127.0.0.1:9/py", description="3.7 shape")
    rule = nb.extras.event_rules.create(
        name="py-rule", content_types=["tenancy.tenant"], type_create=True, action_type="webhook",
        action_object_type="extras.webhook", action_object_id=hook.id,
    )
    eq((rule.action_object.id, rule.action_type.value, str(rule)), (hook.id, "webhook", "py-rule"), "rule")
    tenant = nb.tenancy.tenants.create(name="py-evt-tenant", slug="py-evt-tenant")
    queued = list(nb.extras.webhook_deliveries.filter(webhook_id=hook.id))
    eq([(d.event.value, d.object_id) for d in queued], [("created", tenant.id)], "delivery queued by the rule")
    request_error(lambda: nb.extras.event_rules.create(name="py-bad", content_types=["tenancy.tenant"], action_type="webhook",
                                                       action_object_type="extras.webhook", action_object_id=hook.id), 400, "no event selected")


@c.check("3.6 webhook fields appear as an event rule of the same name")
def _():
    hook = nb.extras.webhooks.create(name="py-hook36", payload_url="http://127.0.0.1:9/py", content_types=["dcim.site"], type_update=True)
    rule = nb.extras.event_rules.get(name="py-hook36")
    eq((rule.content_types, rule.type_update, rule.action_object_id), (["dcim.site"], True, hook.id), "companion rule")
    rule.type_delete = True
    true(rule.save(), "rule.save()")
    eq(nb.extras.webhooks.get(hook.id).type_delete, True, "mirrored back onto the webhook")


@c.check("export template through ?export= and a saved filter through ?filter=")
def _():
    for name, status in (("py-x1", "active"), ("py-x2", "planned")):
        nb.dcim.sites.create(name=name, slug=name, status=status)
    nb.extras.export_templates.create(name="py-sites", content_types=["dcim.site"], template_code="{% for s in queryset %}{{ s.slug }},{% endfor %}", as_attachment=False)
    headers = {"Authorization": f"Token {TOKEN}"}
    text = requests.get(f"{URL}/api/dcim/sites/", params={"export": "py-sites", "slug__isw": "py-x"}, headers=headers, timeout=30).text
    eq(text, "py-x1,py-x2,", "rendered export")
    nb.extras.saved_filters.create(name="py active", slug="py-active", content_types=["dcim.site"], parameters={"status": ["active"], "slug__isw": "py-x"})
    eq([s.slug for s in nb.dcim.sites.filter(filter="py-active")], ["py-x1"], "filter(filter=slug)")


c.done()
