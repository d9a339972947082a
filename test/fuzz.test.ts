/**
 * The fuzzer in CI: a few thousand hostile requests (test/fuzz/run.ts) against every endpoint the
 * registry knows, with a fixed seed so any failure replays: `FUZZ_SEED=<seed> npm test -- fuzz`
 * (FUZZ_SHRINK=1 to shrink the failing case). `npm run fuzz` runs a longer campaign with a new seed.
 * FUZZ_RUNS sets the number of cases.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engine, startApp, type TestApp } from './helpers.js';
import { fuzz } from './fuzz/run.js';

const seed = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED || 20261125);
const runs = Number(process.env.FUZZ_RUNS || 2500);
const starting = startApp();
let app: TestApp;
const test = suite(`fuzz (${engine}, seed ${seed})`);

test.before(async () => { app = await starting; });
test.after(() => app.stop());

test(`${runs} hostile requests: no 5xx, no hang, no reset, refused writes change nothing`, async () => {
  console.log(`  fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} (${engine})`);
  const started = performance.now();
  const outcome = await fuzz(app, { seed, runs, shrink: process.env.FUZZ_SHRINK === '1' });
  const statuses = [...outcome.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}:${n}`).join(' ');
  console.log(`  fuzz: ${outcome.cases} requests in ${((performance.now() - started) / 1000).toFixed(1)} s; statuses ${statuses}`);
  const failures = [...outcome.failures].map(([key, f]) => `${f.count}x ${key}\n    e.g. ${f.example}`);
  assert.equal(failures, [], `${failures.length} kinds of failure (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}; FUZZ_SHRINK=1 stops at the first and shrinks it):\n${failures.join('\n')}`);
  assert.ok(outcome.cases >= runs * 0.9, `ran ${outcome.cases} cases`);
});

test.run();
