/**
 * A small closed-loop load client: `clients` concurrent keep-alive connections, each sending the
 * next request as soon as the previous answer is read, for `seconds`. It runs in its own process,
 * so neither the service's event loop nor its memory figure includes the client (they still share
 * the machine's cores).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50: number;
  p95: number;
  errors: number;
}

interface Job {
  urls: string[];
  headers: Record<string, string>;
  clients: number;
  seconds: number;
}

async function run(job: Job): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.clients });
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const until = performance.now() + job.seconds * 1000;
  const one = (url: string) => new Promise<void>((resolve) => {
    const started = performance.now();
    const req = request(url, { agent, headers: job.headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        if (res.statusCode !== 200) errors++;
        latencies.push(performance.now() - started);
        resolve();
      });
    });
    req.on('error', () => { errors++; resolve(); });
    req.end();
  });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: job.clients }, async () => {
    while (performance.now() < until) await one(job.urls[next++ % job.urls.length]);
  }));
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return { requests: latencies.length, perSecond: latencies.length / elapsed, p50: pct(50), p95: pct(95), errors };
}

/** Runs the load from a child process and returns its figures. */
export function load(job: Job): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--load-client'], { execArgv: ['--import', 'tsx'] });
    child.once('message', (result) => { child.disconnect(); resolve(result as LoadResult); });
    child.once('error', reject);
    child.send(job);
  });
}

if (process.argv.includes('--load-client')) process.once('message', async (job) => process.send!(await run(job as Job)));
