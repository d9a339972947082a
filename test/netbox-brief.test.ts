/**
 * Brief shapes (`?brief=1`) equal NetBox 3.7's: for every model of NetBox 3.7.8's API tests
 * (`brief_fields`, in test/fixtures/netbox-3.7.json by list path) that this service serves, the brief
 * field names equal NetBox's, with the spec's `display_name` added on devices. Through HTTP, the
 * conformance suite checks that `?brief=1` shows exactly the model's brief fields (detail and list);
 * this test ties those fields to NetBox's. Differences known and owned elsewhere are
 * listed below; that list may only get shorter.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { modelList } from '../runtime/data/registry.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/netbox-3.7.json', import.meta.url), 'utf8')) as { brief: Record<string, string[]> };

/** Fields this service adds to NetBox's brief shape, by list path (the spec's). */
const EXTRA: Record<string, string[]> = { '/api/dcim/devices/': ['display_name'] };

/** Known differences (list path -> what differs), to be fixed; may only get shorter. */
const KNOWN: Record<string, string> = {};

const test = suite('NetBox 3.7 brief shapes');

test('every served model\'s brief fields equal NetBox 3.7\'s', () => {
  const byPath = new Map(modelList.map((e) => [e.routes.list, e]));
  const differences: Record<string, string> = {};
  let compared = 0;
  for (const [path, fields] of Object.entries(fixture.brief)) {
    const entry = byPath.get(path);
    if (!entry) continue;
    compared++;
    const want = [...fields, ...(EXTRA[path] ?? [])].sort();
    const have = [...entry.serializer.brief].sort();
    const missing = want.filter((f) => !have.includes(f));
    const extra = have.filter((f) => !want.includes(f));
    if (missing.length || extra.length) differences[path] = `missing [${missing.join(', ')}], extra [${extra.join(', ')}]`;
  }
  const fixed = Object.keys(KNOWN).filter((p) => !differences[p]);
  console.log(`  ${compared - Object.keys(differences).length} of ${compared} served models' brief shapes equal NetBox's${fixed.length ? `; now equal, remove from KNOWN: ${fixed.join(' ')}` : ''}`);
  const unexpected = Object.fromEntries(Object.entries(differences).filter(([p, d]) => KNOWN[p] !== d));
  assert.equal(unexpected, {});
});

test.run();
