"""pynetbox pagination over thousands of objects, sequential and threaded (threading=True):
2,500 sites from one bulk create, and 2,000 tenants (an exact multiple of the 1,000 page size,
where threaded pynetbox 7.0.0 also asks for the page at offset == count)."""
from urllib.parse import parse_qs, urlsplit

from _harness import State, Checks, api, eq, no_duplicates, true

c = Checks("pagination")
nb = c.watch(api())
threaded = c.watch(api(threading=True))
SITE_DESC = "py-page-2500"
state = State()


def query(response):
    return {k: v[-1] for k, v in parse_qs(urlsplit(response.request.url).query).items()}


def same_ids(records, expected, what):
    got = [r.id for r in records]
    no_duplicates(got, what)
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    true(not missing and not extra, f"{what}: {len(missing)} missing (e.g. {missing[:5]}), {len(extra)} unexpected (e.g. {extra[:5]})")
    eq(len(got), len(expected), f"{what}: number of records")


@c.check("bulk create of 2,500 sites in one request")
def _():
    sites = nb.dcim.sites.create([
        {"name": f"py-page-{i:04d}", "slug": f"py-page-{i:04d}", "description": SITE_DESC, "status": ("active", "planned", "staging")[i % 3]}
        for i in range(2500)
    ])
    eq(len(sites), 2500, "records returned")
    eq(len(nb.wire.requests("POST")), 1, "one POST")
    eq([s.name for s in sites[:3]], ["py-page-0000", "py-page-0001", "py-page-0002"], "returned in order")
    no_duplicates([s.id for s in sites], "ids")
    state["sites"] = [s.id for s in sites]


@c.check("filter() walks 2,500 sites sequentially: limit=0 gives 1,000, then next")
def _():
    records = list(nb.dcim.sites.filter(description=SITE_DESC))
    same_ids(records, state["sites"], "filter(description=)")
    gets = nb.wire.requests("GET")
    first = gets[0]
    eq(query(first).get("limit"), "0", "first request limit=0")
    eq(len(first.json()["results"]), 1000, "limit=0 gives MAX_PAGE_SIZE rows")
    eq(first.json()["count"], 2500, "count")
    nxt = first.json()["next"]
    true(nxt and nxt.startswith("http") and "description=py-page-2500" in nxt, f"next is absolute and keeps the filter ({nxt})")
    eq(len(gets), 3, "three pages")
    eq(gets[-1].json()["next"], None, "next is null on the last page")
    eq([r.status_code for r in gets], [200, 200, 200], "statuses")


@c.check("all() walks every site sequentially without duplicates")
def _():
    total = nb.dcim.sites.count()
    records = list(nb.dcim.sites.all())
    no_duplicates([r.id for r in records], "all()")
    eq(len(records), total, "all() returns count() records")
    true(set(state["sites"]) <= {r.id for r in records}, "all() includes the 2,500 sites")


@c.check("threading=True: filter() over 2,500 sites, no duplicates, none missing")
def _():
    records = list(threaded.dcim.sites.filter(description=SITE_DESC))
    same_ids(records, state["sites"], "threaded filter()")
    offsets = sorted(int(query(r).get("offset", 0)) for r in threaded.wire.requests("GET"))
    eq(offsets, [0, 1000, 2000], "pages fetched at offsets")


@c.check("threading=True: all() over every site")
def _():
    total = nb.dcim.sites.count()
    records = list(threaded.dcim.sites.all())
    no_duplicates([r.id for r in records], "threaded all()")
    eq(len(records), total, "threaded all() returns count() records")


@c.check("filter(limit=400) follows next in pages of 400")
def _():
    records = list(nb.dcim.sites.filter(description=SITE_DESC, limit=400))
    same_ids(records, state["sites"], "filter(limit=400)")
    gets = nb.wire.requests("GET")
    eq(len(gets), 7, "2,500 / 400 -> 7 pages")
    true(all(len(r.json()["results"]) == 400 for r in gets[:6]), "full pages of 400")


@c.check("filter(limit, offset) returns exactly one page")
def _():
    records = list(nb.dcim.sites.filter(description=SITE_DESC, limit=100, offset=2450))
    eq(len(records), 50, "one short page")
    eq(len(nb.wire.requests("GET")), 1, "one request")
    eq([r.name for r in records][:2], ["py-page-2450", "py-page-2451"], "stable name order")
    past = list(nb.dcim.sites.filter(description=SITE_DESC, limit=100, offset=5000))
    eq(past, [], "offset past the end gives no records")


@c.check("limit above MAX_PAGE_SIZE is capped at 1,000")
def _():
    page = nb.http_session.get(f"{nb.base_url}/dcim/sites/?description={SITE_DESC}&limit=5000",
                               headers={"Authorization": f"Token {nb.token}", "Accept": "application/json"}).json()
    eq(len(page["results"]), 1000, "rows on a page asked with limit=5000")
    nxt = parse_qs(urlsplit(page["next"]).query)
    eq((nxt.get("limit"), nxt.get("offset")), (["1000"], ["1000"]), "next link limit/offset")


@c.check("setup: 2,000 tenants in one group (bulk create)")
def _():
    group = nb.tenancy.tenant_groups.create(name="py-page-group", slug="py-page-group")
    tenants = nb.tenancy.tenants.create([{"name": f"py-page-t{i:04d}", "slug": f"py-page-t{i:04d}", "group": group.id} for i in range(2000)])
    eq(len(tenants), 2000, "records returned")
    state["group"] = group.id
    state["tenants"] = [t.id for t in tenants]


@c.check("exact multiple of the page size (2,000): sequential")
def _():
    records = list(nb.tenancy.tenants.filter(group_id=state["group"]))
    same_ids(records, state["tenants"], "filter(group_id=)")
    eq(len(nb.wire.requests("GET")), 2, "two pages")


@c.check("exact multiple of the page size (2,000): threaded asks offset 2000 and gets []")
def _():
    records = list(threaded.tenancy.tenants.filter(group_id=state["group"]))
    same_ids(records, state["tenants"], "threaded filter(group_id=)")
    gets = threaded.wire.requests("GET")
    at_end = [r for r in gets if query(r).get("offset") == "2000"]
    eq(len(at_end), 1, "pynetbox 7.0.0 asks one page at offset == count")
    eq(at_end[0].status_code, 200, "status of the page at offset == count")
    eq(at_end[0].json()["results"], [], "results of the page at offset == count")


@c.check("threading=True with a small page size (limit=5 over 23 tenants)")
def _():
    group = nb.tenancy.tenant_groups.create(name="py-page-small", slug="py-page-small")
    made = nb.tenancy.tenants.create([{"name": f"py-page-s{i:02d}", "slug": f"py-page-s{i:02d}", "group": group.id} for i in range(23)])
    records = list(threaded.tenancy.tenants.filter(group_id=group.id, limit=5))
    same_ids(records, [t.id for t in made], "threaded filter(limit=5)")


c.done()
