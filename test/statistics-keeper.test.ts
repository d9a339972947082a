/**
 * The service's planner-statistics rounds (runtime/data/statistics.ts) and its stop: a round in
 * flight when the service stops is waited for, so nothing runs on a pool being closed or in a schema
 * being dropped (a round that outlived its schema warned in CI's log).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApp } from './helpers.js';

interface Pool { max: number; numUsed(): number; numPendingAcquires(): number }
interface PoolClient { pool: Pool; acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<void> }

const test = suite('planner statistics: a stop waits for the round in flight');

test('a round waiting for a connection holds the stop until it has run and given its connection back', async () => {
  const app = await startApp({ STATISTICS_INTERVAL: '0.1' });
  try {
    const client = app.running.db.client as PoolClient;
    // Every connection taken: the next round (every 100 ms) waits for one.
    const held = await Promise.all(Array.from({ length: client.pool.max }, () => client.acquireConnection()));
    await sleep(300);
    assert.ok(client.pool.numPendingAcquires() >= 1, 'a round is in flight, waiting for a connection');
    let stopped = false;
    const stopping = app.running.statistics.stop().then(() => { stopped = true; });
    await sleep(300);
    assert.not.ok(stopped, 'the stop waits while the round cannot run');
    for (const connection of held) await client.releaseConnection(connection);
    await stopping;
    assert.is(client.pool.numPendingAcquires(), 0, 'every round got its connection');
    assert.is(client.pool.numUsed(), 0, 'and gave it back before the stop returned');
    // Stopped for good: no round starts afterwards.
    await sleep(300);
    assert.is(client.pool.numUsed() + client.pool.numPendingAcquires(), 0);
  } finally {
    await app.stop();
  }
});

test.run();
