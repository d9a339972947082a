"""pynetbox discovery calls: nb.version, create_token, status(), openapi()."""
import re

import pynetbox

from _harness import State, ADMIN_PASSWORD, ADMIN_USERNAME, TOKEN, URL, Checks, api, eq, request_error, true

c = Checks("discovery")


@c.check("version probe without a token is 3.7")
def _():
    nb = c.watch(api(token=None))
    eq(nb.version, "3.7", "nb.version")
    probe = nb.wire.requests("GET")[-1]
    eq(probe.request.url, f"{URL}/api/", "probe URL")
    true("authorization" not in {k.lower() for k in probe.request.headers}, "the probe sends no Authorization header")
    eq(probe.status_code, 200, "GET /api/ without a token")


@c.check("version probe ignores a wrong token")
def _():
    nb = c.watch(api(token="0" * 40))
    eq(nb.version, "3.7", "nb.version with an unknown token")


@c.check("API-Version header on error responses")
def _():
    nb = c.watch(api())
    eq(nb.dcim.sites.get(987654321), None, "get() of an unknown id")
    missing = nb.wire.requests("GET")[-1]
    eq(missing.status_code, 404, "GET of an unknown id")
    eq(missing.headers.get("API-Version"), "3.7", "API-Version on a 404")
    eq(missing.json(), {"detail": "Not found."}, "404 body")
    anonymous = c.watch(api(token=None))
    err = request_error(lambda: list(anonymous.dcim.sites.all()), 403, "list without a token")
    eq(err.req.headers.get("API-Version"), "3.7", "API-Version on a 403")
    true("detail" in err.req.json(), "403 body has detail")


@c.check("create_token with username and password")
def _():
    nb = c.watch(api(token=None))
    token = nb.create_token(ADMIN_USERNAME, ADMIN_PASSWORD)
    true(re.fullmatch(r"[0-9a-f]{40}", token.key or ""), f"token key is 40 hex digits, got {token.key!r}")
    eq(nb.token, token.key, "nb.token after create_token")
    true(re.fullmatch(re.escape(URL) + r"/api/users/tokens/\d+/", token.url), f"token url is its detail URL, got {token.url}")
    eq(token.write_enabled, True, "provisioned token is write-enabled")
    eq(token.user.username, ADMIN_USERNAME, "token.user.username")
    provision = nb.wire.requests("POST")[-1]
    eq(provision.status_code, 201, "POST /api/users/tokens/provision/")
    # The new token works for reads and writes.
    tag = nb.extras.tags.create(name="py-token-works", slug="py-token-works")
    true(tag.id > 0, "create with the provisioned token")
    eq(nb.extras.tags.get(slug="py-token-works").id, tag.id, "get with the provisioned token")
    true(tag.delete(), "delete with the provisioned token")


@c.check("create_token with a wrong password is RequestError 403")
def _():
    nb = c.watch(api(token=None))
    err = request_error(lambda: nb.create_token(ADMIN_USERNAME, "not-the-password"), 403, "create_token with a wrong password")
    eq(err.req.json(), {"detail": "Invalid username/password"}, "403 body")
    eq(nb.token, None, "nb.token stays unset")
    request_error(lambda: nb.create_token("no-such-user", "x"), 403, "create_token for an unknown user")


@c.check("status() reports NetBox 3.7")
def _():
    nb = c.watch(api())
    status = nb.status()
    true(isinstance(status, dict), "status() is a dict")
    version = status.get("netbox-version")
    true(isinstance(version, str) and re.fullmatch(r"3\.7\.\d+", version), f"netbox-version is 3.7.x, got {version!r}")
    for key in ("django-version", "installed-apps", "plugins", "python-version", "rq-workers-running"):
        true(key in status, f"status() has {key!r}")


@c.check("openapi() returns the OpenAPI document without a token")
def _():
    nb = c.watch(api(token=None))
    doc = nb.openapi()
    true(isinstance(doc, dict) and isinstance(doc.get("paths"), dict), "openapi() is a document with paths")
    call = nb.wire.requests("GET")[-1]
    eq(call.request.url, f"{URL}/api/docs/?format=openapi", "pynetbox 7.0.0 asks /api/docs/?format=openapi")
    true(doc.get("openapi", "").startswith("3.") or doc.get("swagger") == "2.0", "an OpenAPI 3 or Swagger 2 document")
    # NetBox >= 3.5 serves OAS3 with /api/ in the path keys (what nb_inventory reads for 3.7).
    devices = doc["paths"].get("/api/dcim/devices/") or doc["paths"].get("/dcim/devices/")
    true(devices and "get" in devices, "paths has /api/dcim/devices/ with get")
    names = {p.get("name") for p in devices["get"].get("parameters", [])}
    for name in ("name", "site_id", "role_id", "status", "limit", "offset", "q"):
        true(name in names, f"GET /api/dcim/devices/ documents the {name!r} parameter")


@c.check("GET /api/ lists the apps with absolute URLs")
def _():
    nb = c.watch(api())
    root = nb.http_session.get(f"{URL}/api/", headers={"Accept": "application/json"}).json()
    for app in ("dcim", "ipam", "tenancy", "extras", "users"):
        eq(root.get(app), f"{URL}/api/{app}/", f"/api/ lists {app}")


@c.check("users.config() returns the user's config")
def _():
    nb = c.watch(api())
    # pynetbox 7.0.0 returns the lazy generator of Request.get(): one dict, the user's preferences.
    config = list(nb.users.config())
    eq(len(config), 1, "GET /api/users/config/ yields one object")
    true(isinstance(config[0], dict), "the config is a JSON object")


c.done()
