/**
 * The service under bench, in its own process (forked by engine.ts), so its memory and event loop
 * are its own: it starts with the environment it is sent, answers its URL, reports its resident
 * memory and CPU time when asked, and on `stop` drops the bench's PostgreSQL schema and exits.
 */
import { loadConfig } from '../../runtime/core/config.js';
import { start, type Running } from '../../runtime/server.js';

type Message = { cmd: 'start'; env: Record<string, string> } | { cmd: 'rss' } | { cmd: 'cpu' } | { cmd: 'stop'; dropSchema?: string };

let running: Running | null = null;
process.on('message', async (message: Message) => {
  if (message.cmd === 'start') {
    running = await start(loadConfig(message.env));
    process.send!({ url: running.url });
  } else if (message.cmd === 'rss') {
    process.send!({ rss: process.memoryUsage().rss });
  } else if (message.cmd === 'cpu') {
    // CPU time is what a request costs whatever else the machine runs; wall time is not.
    const { user, system } = process.cpuUsage();
    process.send!({ cpu: (user + system) / 1000 });
  } else if (message.cmd === 'stop') {
    await running?.worker?.stop();
    if (message.dropSchema) await running?.db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [message.dropSchema]);
    await running?.close();
    process.send!({ stopped: true });
    process.disconnect();
  }
});
