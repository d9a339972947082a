// The failover test's load and its verdict (run by test-failover.sh; plain Node, no dependencies).
//   node load.mjs run    : CLIENTS clients write through HTTP_URL until HA_DIR/stop-load exists,
//                          with a webhook receiver on RECEIVER_PORT; results in HA_DIR/load.json
// Each client creates sites (each with an Idempotency-Key, retried with the same key after a 503 or a
// dropped connection until answered) and patches the ones it created. A webhook fires on each create.
import { createServer } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

const { HTTP_URL, HA_DIR, ADMIN_TOKEN } = process.env;
const CLIENTS = Number(process.env.CLIENTS ?? 6);
const RECEIVER_PORT = Number(process.env.RECEIVER_PORT ?? 18090);
const prefix = `ha-${Date.now().toString(36)}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Date.now();

async function call(method, path, body, key) {
  const headers = { Authorization: `Token ${ADMIN_TOKEN}`, Accept: 'application/json' };
  if (body) headers['Content-Type'] = 'application/json';
  if (key) headers['Idempotency-Key'] = key;
  try {
    const res = await fetch(HTTP_URL + path, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    // HAProxy answers with an HTML page when no node is up: keep its status.
    const json = (res.headers.get('content-type') ?? '').includes('json');
    return { status: res.status, body: text && json ? JSON.parse(text) : null, retryAfter: Number(res.headers.get('retry-after') ?? 0) };
  } catch (error) {
    return { status: 0, error: String(error?.cause?.code ?? error?.name ?? error) };
  }
}

// Webhook receiver: every request's webhook-id and the site's slug.
const hooks = [];
const receiver = createServer((req, res) => {
  let data = '';
  req.on('data', (c) => { data += c; });
  req.on('end', () => {
    try { hooks.push({ id: req.headers['webhook-id'], slug: JSON.parse(data).data?.slug, at: now() }); } catch { /* not ours */ }
    res.writeHead(200).end('ok');
  });
});

const requests = []; // { start, end, method, status, attempt, error }
const created = []; // { slug, id, key }
const gaveUp = []; // slugs a client never got an answer for
let stopping = false;

async function write(method, path, body) {
  const key = randomUUID();
  const deadline = now() + 120_000;
  for (let attempt = 1; ; attempt++) {
    const start = now();
    const reply = await call(method, path, body, key);
    requests.push({ start, end: now(), method, status: reply.status, attempt, error: reply.error, detail: reply.body?.detail });
    if (reply.status >= 200 && reply.status < 300) return reply;
    const retryable = reply.status === 0 || reply.status === 502 || reply.status === 503 || reply.status === 504;
    if (!retryable || now() > deadline) return reply;
    await sleep(Math.min(1000, (reply.retryAfter || 0.25) * 250));
  }
}

async function client(n) {
  let i = 0;
  const mine = [];
  while (!stopping) {
    i++;
    if (mine.length && i % 3 === 0) {
      const site = mine[i % mine.length];
      await write('PATCH', `/api/dcim/sites/${site.id}/`, { description: `update ${i}` });
    } else {
      const slug = `${prefix}-${n}-${i}`;
      const reply = await write('POST', '/api/dcim/sites/', { name: slug, slug });
      if (reply.status === 201) { created.push({ slug, id: reply.body.id }); mine.push({ slug, id: reply.body.id }); } else gaveUp.push({ slug, status: reply.status, body: reply.body });
    }
    await sleep(20);
  }
}

async function setup() {
  const hook = await call('POST', '/api/extras/webhooks/', { name: `${prefix}-hook`, payload_url: `http://127.0.0.1:${RECEIVER_PORT}/hook`, http_method: 'POST', http_content_type: 'application/json' });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
  const rule = await call('POST', '/api/extras/event-rules/', { name: `${prefix}-rule`, content_types: ['dcim.site'], type_create: true, action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.body.id, conditions: { and: [{ attr: 'slug', value: prefix, op: 'contains' }] } });
  if (rule.status !== 201) throw new Error(`event rule: ${rule.status} ${JSON.stringify(rule.body)}`);
}

async function listAll() {
  const found = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await call('GET', `/api/dcim/sites/?slug__isw=${prefix}&limit=1000&offset=${offset}&brief=1`);
    if (page.status !== 200) throw new Error(`list: ${page.status}`);
    found.push(...page.body.results);
    if (!page.body.next) return found;
  }
}

// Each node's /readyz every 250 ms (NODE_URLS, comma-separated): when it changed, for the report.
const readiness = [];
async function watchNodes() {
  const nodes = (process.env.NODE_URLS ?? '').split(',').filter(Boolean);
  const last = new Map();
  while (!stopping) {
    await Promise.all(nodes.map(async (url) => {
      let state;
      try { state = (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })).status; } catch (error) { state = String(error?.cause?.code ?? error?.name); }
      if (last.get(url) !== state) { last.set(url, state); readiness.push({ url, state, at: now() }); }
    }));
    await sleep(250);
  }
}

async function watchStop() { while (!existsSync(`${HA_DIR}/stop-load`)) await sleep(200); stopping = true; }

await new Promise((r) => receiver.listen(RECEIVER_PORT, '127.0.0.1', r));
await setup();
writeFileSync(`${HA_DIR}/load-started`, String(now()));
await Promise.all([watchStop(), watchNodes(), ...Array.from({ length: CLIENTS }, (_, n) => client(n).catch((e) => { console.error('client', n, e); }))]);

// The verdict, once the cluster is whole again.
const events = Object.fromEntries(readFileSync(`${HA_DIR}/events`, 'utf8').trim().split('\n').map((l) => l.split(' ')).map(([k, v]) => [k, Number(v)]));
const acknowledged = created.length;
// Webhooks: wait until every acknowledged create has been delivered (or 120 s).
const want = new Set(created.map((c) => c.slug));
const drainUntil = now() + 120_000;
while (now() < drainUntil && [...want].some((slug) => !hooks.some((h) => h.slug === slug))) await sleep(500);
const found = await listAll();
const stored = new Map(found.map((s) => [s.slug ?? s.name, s]));
let lost = 0;
for (const c of created) {
  const r = await call('GET', `/api/dcim/sites/${c.id}/`);
  if (r.status !== 200 || r.body.slug !== c.slug) lost++;
}
const phantom = found.filter((s) => !want.has(s.slug ?? s.name)).length;
const bySlug = new Map();
for (const h of hooks) if (h.slug) bySlug.set(h.slug, [...(bySlug.get(h.slug) ?? []), h.id]);
const hooksLost = [...want].filter((slug) => !bySlug.has(slug)).length;
const duplicated = [...bySlug.values()].reduce((n, ids) => n + ids.length - 1, 0);
const distinctIds = [...bySlug.values()].reduce((n, ids) => n + new Set(ids).size - 1, 0);
const writes = requests.filter((r) => r.method !== 'GET');
const ok = (r) => r.status >= 200 && r.status < 300;
// Writes are back once a write succeeds after the last one that failed in the primary's event (a
// killed postmaster's backends may still finish a few writes on their open connections first). A
// failure belongs to the event in which it ended: a write sent just before the node is killed and cut
// off by it is that event's.
const failedAfterKill = writes.filter((r) => r.end >= events.primary_killed && r.end < events.node_killed && !ok(r));
const outageEnd = failedAfterKill.length ? Math.max(...failedAfterKill.map((r) => r.end)) : events.primary_killed;
const back = writes.filter((r) => r.end > outageEnd && ok(r)).sort((a, b) => a.end - b.end)[0];
const writesBack = back ? (back.end - events.primary_killed) / 1000 : Infinity;
const window = (from, to) => {
  const inside = writes.filter((r) => r.end >= from && r.end < to && !ok(r)).sort((a, b) => a.end - b.end);
  const by = {};
  for (const r of inside) { const kind = r.status || `connection error (${r.error})`; by[kind] = (by[kind] ?? 0) + 1; }
  const span = inside.length ? (inside.at(-1).end - Math.min(...inside.map((r) => r.start))) / 1000 : 0;
  const details = [...new Set(inside.map((r) => r.detail).filter(Boolean))].slice(0, 3);
  const seconds = (r) => ((r.end - from) / 1000).toFixed(1);
  const when = inside.length ? `, from +${seconds(inside[0])} s to +${seconds(inside.at(-1))} s` : '';
  const nodes = readiness.filter((r) => r.at >= from && r.at < to).map((r) => `${r.url.split(':').pop()} ${r.state} at +${((r.at - from) / 1000).toFixed(1)} s`);
  return `${inside.length} failed attempts ${JSON.stringify(by)} over ${span.toFixed(1)} s${when}${details.length ? ` (${details.join(' | ')})` : ''}${nodes.length ? `; readyz: ${nodes.join(', ')}` : ''}`;
};
console.log(`load: ${writes.length} write attempts, ${acknowledged} sites acknowledged, ${gaveUp.length} given up, ${hooks.length} webhook requests received, ${stored.size} sites stored`);
console.log(`event primary killed (${Object.keys(events).find((k) => k.startsWith('primary_name_'))?.slice(13)}): ${window(events.primary_killed, events.node_killed)}`);
console.log(`event NetLedger node killed: ${window(events.node_killed, events.old_primary_restarted)}`);
console.log(`event old primary restarted: ${window(events.old_primary_restarted, events.load_stopped)}`);
console.log(`webhook duplicates: ${duplicated} repeated deliveries (${distinctIds} with a different webhook-id)`);
if (gaveUp.length) console.log(`given up: ${JSON.stringify(gaveUp.slice(0, 5))}`);
writeFileSync(`${HA_DIR}/verdict`, JSON.stringify({ lost, phantom, hooksLost, duplicated, writesBack, gaveUp: gaveUp.length }));
receiver.close();
process.exit(0);
