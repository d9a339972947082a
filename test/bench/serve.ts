/**
 * The service under bench, in its own process (forked by engine.ts), so its memory and event loop
 * are its own: it starts with the environment it is sent, answers its URL, reports its resident
 * memory and CPU time when asked, and on `stop` drops the bench's PostgreSQL schema and exits.
 *
 * `--dist`: serve the compiled build (dist/, what `npm start` runs) under plain Node, which strips
 * this file's types itself; the bench measures production memory that way (tsx alone adds ~50 MB).
 * Without it (under `--import tsx`), the TypeScript sources, as the tests use it.
 */
import type { Running } from '../../runtime/server.js';

type Message = { cmd: 'start'; env: Record<string, string> } | { cmd: 'rss' } | { cmd: 'cpu' } | { cmd: 'stop'; dropSchema?: string };

const root = process.argv.includes('--dist') ? '../../dist/runtime/' : '../../runtime/';
// Loaded while the listener below is already in place, so the first message is never missed.
const runtime = Promise.all([
  import(`${root}server.js`) as Promise<typeof import('../../runtime/server.js')>,
  import(`${root}core/config.js`) as Promise<typeof import('../../runtime/core/config.js')>,
]);

let running: Running | null = null;
process.on('message', async (message: Message) => {
  if (message.cmd === 'start') {
    const [{ start }, { loadConfig }] = await runtime;
    running = await start(loadConfig(message.env));
    process.send!({ url: running.url });
  } else if (message.cmd === 'rss') {
    // With the breakdown, to tell the JavaScript heap from native memory (driver, SQLite, buffers).
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
    process.send!({ rss, heapTotal, heapUsed, external, arrayBuffers });
  } else if (message.cmd === 'cpu') {
    // CPU time is what a request costs whatever else the machine runs; wall time is not.
    const { user, system } = process.cpuUsage();
    process.send!({ cpu: (user + system) / 1000 });
  } else if (message.cmd === 'stop') {
    await running?.worker?.stop();
    await running?.statistics.stop();
    if (message.dropSchema) await running?.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [message.dropSchema]);
    await running?.close();
    process.send!({ stopped: true });
    process.disconnect();
  }
});
