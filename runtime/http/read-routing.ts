/**
 * Read scaling with a streaming standby (DATABASE_READ_URL). A GET or HEAD of the API reads from the
 * standby unless its client wrote recently: every successful write records where the primary's WAL
 * stood after it (its fence, per token, or per user for a browser session, in `core_read_fence` on
 * the primary, so every node and process sees it), and that client's reads go to the primary until
 * the standby has replayed past the fence (read-your-writes). Other clients may read data as old as
 * the standby's replication lag. A standby that fails a check is left alone for a few seconds: reads
 * go to the primary meanwhile.
 */
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import client from 'prom-client';
import { registry } from '../core/metrics.js';
import { log } from '../core/log.js';
import type { Auth } from '../auth/authenticate.js';

const STANDBY_REST_MS = 5000;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const reads = new client.Counter({
  name: 'netledger_reads_total',
  help: 'API reads (GET and HEAD) by the database that served them, when DATABASE_READ_URL is set',
  labelNames: ['database'],
  registers: [registry],
});

/** The client whose writes a read must see: its token, or its user when it came with a session. */
function clientOf(auth: Auth | undefined): string | null {
  if (auth?.tokenId) return `token:${auth.tokenId}`;
  if (auth?.user) return `user:${auth.user.id}`;
  return null;
}

/** An LSN (`16/B374D848`) as a number that orders as the WAL does. */
function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** Middleware: chooses the database of a read (`state.readDb`) and records the fence of a write. */
export function readRouting(primary: Knex, standby: Knex): (ctx: Context, next: Next) => Promise<void> {
  let restUntil = 0;

  async function fenceOf(key: string): Promise<string | null> {
    const rows: { lsn: string }[] = await primary('core_read_fence').where('client', key).select(primary.raw('lsn::text as lsn'));
    return rows[0]?.lsn ?? null;
  }

  /** The standby when it is up and (for a client with a fence) has replayed past the fence. */
  async function readerFor(key: string | null): Promise<Knex> {
    if (Date.now() < restUntil) return primary;
    try {
      const [fence, replayed] = await Promise.all([
        key ? fenceOf(key) : null,
        standby.raw('select pg_last_wal_replay_lsn()::text as lsn').then((r: { rows: { lsn: string | null }[] }) => r.rows[0]?.lsn ?? null),
      ]);
      if (fence === null) return standby;
      // A standby promoted to primary replays nothing: it has every committed write.
      if (replayed === null) return standby;
      return lsnValue(replayed) >= lsnValue(fence) ? standby : primary;
    } catch (error) {
      restUntil = Date.now() + STANDBY_REST_MS;
      log.warn({ err: error }, 'read routing: the standby did not answer; reads go to the primary for a while');
      return primary;
    }
  }

  return async (ctx, next) => {
    const state = ctx.state as { auth?: Auth; readDb?: Knex };
    const key = clientOf(state.auth);
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      const reader = await readerFor(key);
      state.readDb = reader;
      reads.inc({ database: reader === standby ? 'standby' : 'primary' });
      await next();
      return;
    }
    await next();
    if (key && WRITES.has(ctx.method) && ctx.status < 400) {
      await primary.raw('insert into core_read_fence (client, lsn) values (?, pg_current_wal_lsn()) on conflict (client) do update set lsn = excluded.lsn', [key]);
    }
  };
}
