/**
 * Every query parameter NetBox 3.7.7's OpenAPI document lists for a list endpoint is a filter here too
 * (test/fixtures/netbox-3.7.json, made from NetBox's openapi.yaml by scripts/netbox-fixture.mjs). For
 * each list this service serves: all of its parameters at once, each with a value of its documented type,
 * must not be refused as unknown (strict filters, the default, name every unknown one in a 400); then
 * the accepted ones must answer 200 together once those a 400 names for their value are left out,
 * never a 500. The parameters still
 * refused are listed below; the list may only get shorter (a new refusal fails, a parameter that
 * becomes accepted is reported so that it leaves the list).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { startApp, type TestApp } from './helpers.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/netbox-3.7.json', import.meta.url), 'utf8')) as {
  lists: Record<string, Record<string, string>>;
};

/** Parameters still refused, by list path (space-separated). */
const KNOWN_REFUSED: Record<string, string> = {
};

/** A value of the parameter's documented type (the fixture's type letters). */
function sample(type: string): string {
  switch (type) {
    case 'i': return '1';
    case 'n': return '1.5';
    case 'b': return 'true';
    case 't': return '2024-01-02T03:04:05Z';
    case 'd': return '2024-01-02';
    case 'u': return '0b4c1e28-36d5-4a2c-9a5e-27d8d8a3f6b1';
    default: return 'x';
  }
}

const CONTROL = new Set(['limit', 'offset', 'ordering', 'format', 'brief']);
const test = suite('NetBox 3.7 list filters');
let app: TestApp;
const served: string[] = [];

test.before(async () => {
  app = await startApp();
  for (const path of Object.keys(fixture.lists)) {
    if ((await app.api('GET', `${path}?limit=1`)).status === 200) served.push(path);
  }
});
test.after(async () => { await app?.stop(); });

test('no listed parameter is refused as unknown, on any served list', async () => {
  const refused: string[] = [];
  let sent = 0;
  for (const path of served) {
    const query = new URLSearchParams();
    for (const [name, type] of Object.entries(fixture.lists[path])) if (!CONTROL.has(name)) query.append(name, sample(type));
    sent += query.size;
    const reply = await app.api('GET', `${path}?${query}`);
    assert.ok(reply.status < 500, `${path}: ${reply.status} ${reply.text.slice(0, 300)}`);
    if (reply.status !== 400 || !reply.body || typeof reply.body !== 'object') continue;
    for (const [name, messages] of Object.entries(reply.body as Record<string, string[]>)) {
      if (/Unknown filter|is not a lookup of/.test(String(messages))) refused.push(`${path}?${name}`);
    }
  }
  const known = new Set(Object.entries(KNOWN_REFUSED).flatMap(([path, names]) => names.split(' ').map((n) => `${path}?${n}`)));
  const accepted = [...known].filter((k) => served.includes(k.split('?')[0]) && !refused.includes(k));
  console.log(`  ${served.length} lists served, ${sent} parameters sent, ${sent - refused.length} accepted, ${refused.length} refused${accepted.length ? `; now accepted, remove from KNOWN_REFUSED: ${accepted.join(' ')}` : ''}`);
  assert.equal(refused.filter((r) => !known.has(r)), [], 'parameters refused that are not known to be');
});

test('the accepted parameters together answer 200, leaving out those a 400 names for their value', async () => {
  const failures: string[] = [];
  let rounds = 0;
  for (const path of served) {
    const known = new Set((KNOWN_REFUSED[path] ?? '').split(' '));
    const params = new Map(Object.entries(fixture.lists[path]).filter(([name]) => !CONTROL.has(name) && !known.has(name)));
    // Send them all; a 400 names the parameters whose value it refuses: leave those out and send again.
    for (;;) {
      rounds++;
      const query = new URLSearchParams([...params].map(([name, type]) => [name, sample(type)]));
      const reply = await app.api('GET', `${path}?${query}&limit=1`);
      if (reply.status === 200) break;
      const named = reply.status === 400 && reply.body && typeof reply.body === 'object' ? Object.keys(reply.body).filter((n) => params.has(n)) : [];
      if (!named.length) { failures.push(`${path}: ${reply.status} ${reply.text.slice(0, 300)}`); break; }
      for (const name of named) params.delete(name);
    }
  }
  console.log(`  ${rounds} requests`);
  assert.equal(failures, []);
});

test.run();
