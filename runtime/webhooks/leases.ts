/**
 * Leases on queued deliveries: a worker claims due rows by writing its name and an expiry into them,
 * so each row is sent by one worker at a time (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite runs the
 * UPDATE alone). An expired lease makes the row claimable again, which is what makes delivery
 * at-least-once when a worker dies.
 */
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Row } from '../data/registry.js';
import { isPostgres } from '../data/db.js';

function rowsOf(result: unknown): Row[] {
  return Array.isArray(result) ? result : ((result as { rows?: Row[] }).rows ?? []);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Leases up to `limit` due deliveries for `owner` until now + leaseMs and returns them. */
export async function claimDue(db: Knex, table: string, owner: string, limit: number, leaseMs: number): Promise<Row[]> {
  if (limit <= 0) return [];
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const skipLocked = isPostgres(db) ? ' for update skip locked' : '';
  const result = await db.raw(
    `update ?? set lease_owner = ?, lease_expires_at = ? where id in (select id from ?? where next_attempt_at <= ? and (lease_expires_at is null or lease_expires_at < ?) order by next_attempt_at, id limit ?${skipLocked}) returning *`,
    [table, owner, new Date(now + leaseMs).toISOString(), table, nowIso, nowIso, limit],
  );
  return rowsOf(result);
}

/** Gives back rows `owner` claimed but will not send. */
export async function releaseRows(db: Knex, table: string, owner: string, rows: Row[]): Promise<void> {
  if (!rows.length) return;
  await db(table).whereIn('id', rows.map((r) => r.id)).where('lease_owner', owner).update({ lease_owner: null, lease_expires_at: null });
}

/** Owners are host/pid/random: leases of processes of this host that are gone are released at once. */
export async function releaseDeadLeases(db: Knex, table: string): Promise<void> {
  const host = hostname();
  const owners: Row[] = await db(table).distinct('lease_owner').whereNotNull('lease_owner');
  for (const { lease_owner: owner } of owners) {
    const [ownerHost, pid] = String(owner).split('/');
    if (ownerHost !== host || !Number(pid) || Number(pid) === process.pid || alive(Number(pid))) continue;
    await db(table).where('lease_owner', owner).update({ lease_owner: null, lease_expires_at: null });
  }
}
