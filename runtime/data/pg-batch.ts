/**
 * PostgreSQL reads started in the same turn of the event loop (a request's tags, counts, hooks and
 * first nested level; other requests' reads of the same moment) go to the server as ONE
 * multi-statement simple query on one pool connection: under load each round trip costs more than
 * its statement (docs/throughput.md).
 *
 * Each statement runs as `EXECUTE <name>(<literals>)` of a statement the connection prepared
 * (`PREPARE <name> AS <sql>` in an earlier batch, or in front of its first EXECUTE in this one): the
 * backend then neither parses nor plans the same text again, which was most of its CPU per request
 * (docs/perf/detail.md: a device detail's batch 1.27 ms of backend CPU as literal text, 0.22 ms as
 * EXECUTEs). A statement is prepared the second time this process sees it, so one-off texts (a page
 * of 37 ids) cost the backend nothing to keep.
 *
 * Statement names carry a tag of the process, so that behind a transaction-mode pooler (PgBouncer),
 * where one server connection serves many clients, a name means one text or nothing: an EXECUTE that
 * lands on a server connection without its statement fails and runs again alone (below), never runs
 * another process's statement. `DATABASE_PREPARED_STATEMENTS=0` (neverPrepare) sends every statement
 * as text instead, for poolers that do not keep prepared statements (PgBouncer before 1.21).
 *
 * A failing statement aborts the rest of a multi-statement query, and a table changed under a
 * prepared plan (a migration of another process: "cached plan must not change result type") fails
 * its EXECUTE: then the connection forgets every prepared statement (DEALLOCATE ALL) and each read
 * runs alone, bound, so every read gets its own answer or error, and the next batch prepares anew.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { asArrays, objectRows, simpleQueryRows } from './pg-rows.js';

interface PoolClient {
  acquireConnection(): Promise<any>;
  releaseConnection(connection: unknown): unknown;
}

interface Waiting {
  sql: string;
  bindings: unknown[];
  literals: string[];
  resolve(rows: Record<string, any>[]): void;
  reject(error: unknown): void;
}

/** Reads queued in this turn of the event loop, per database. */
const waiting = new Map<unknown, Waiting[]>();
/** Statements each connection has prepared, by SQL text. */
const preparedOn = new WeakMap<object, Map<string, string>>();
/** Statement texts seen once in this process (bounded: a full set starts again). */
const seenOnce = new Set<string>();
/** Prepared statements per connection before it starts again (each holds a plan in its backend). */
const MOST_PREPARED = 200;
/**
 * Statements with more parameters run as text: a page of many ids is planned in about the time it
 * runs, and a plan kept for 1,000 parameters cost the backend more than it saved (GET 1000 devices).
 */
const MOST_PARAMETERS = 100;
let names = 0;
const PROCESS_TAG = randomBytes(4).toString('hex');
/** The databases (their knex clients) whose batches prepare nothing. */
const unprepared = new WeakSet<object>();

/** Batches of `db` send their statements as text, never PREPARE/EXECUTE. */
export function neverPrepare(db: Knex): void {
  unprepared.add(db.client);
}

/** Values written into SQL as they are: integers, booleans, and plain names (content types). */
const PLAIN = /^[A-Za-z0-9_.:-]*$/;

/**
 * The parameters of a statement as literals, or null when one is not trivially safe as a literal
 * (then the read runs alone, bound). The statements batched are the runtime's own reads by id:
 * integers and names from the schema, arrays of ids, and the byte strings of IP bounds (a `parent=`
 * page and its count), written in hex.
 */
export function literalsOf(bindings: unknown[]): string[] | null {
  const literals: string[] = [];
  for (const b of bindings) {
    // A negative number in brackets: `x - $1` must not become `x - -1`, a comment.
    if (typeof b === 'number' && Number.isSafeInteger(b)) literals.push(b < 0 ? `(${b})` : String(b));
    else if (typeof b === 'boolean') literals.push(b ? 'true' : 'false');
    else if (typeof b === 'string' && PLAIN.test(b)) literals.push(`'${b}'`);
    // An escape string: its meaning does not depend on standard_conforming_strings.
    else if (Buffer.isBuffer(b)) literals.push(`E'\\\\x${b.toString('hex')}'::bytea`);
    // A list of ids as one array parameter (id-arrays.ts).
    else if (Array.isArray(b) && b.every((n) => Number.isSafeInteger(n))) literals.push(`'{${b.join(',')}}'`);
    else return null;
  }
  return literals;
}

/** Runs `sql` (`$n` parameters, `literals` their values written out) in this turn's batch. */
export function inBatch(db: Knex, sql: string, bindings: unknown[], literals: string[]): Promise<Record<string, any>[]> {
  return new Promise((resolve, reject) => {
    let list = waiting.get(db.client);
    if (!list) {
      const queued: Waiting[] = (list = []);
      waiting.set(db.client, queued);
      setImmediate(() => { waiting.delete(db.client); void runBatch(db, queued); });
    }
    list.push({ sql, bindings, literals, resolve, reject });
  });
}

/** The statement's text as it was (its parameters written out), for a statement seen only once. */
function written(w: Waiting): string {
  return w.literals.length ? w.sql.replace(/\$(\d+)\b/g, (_, n: string) => w.literals[Number(n) - 1]) : w.sql;
}

/** Is this the first time this process sees the text? (It is remembered either way.) */
function firstSighting(sql: string): boolean {
  if (seenOnce.has(sql)) return false;
  if (seenOnce.size >= 10_000) seenOnce.clear();
  seenOnce.add(sql);
  return true;
}

/** The batch's text, and for each read the index of its result among the statements'. */
function batchText(prepared: Map<string, string>, list: Waiting[], prepares: boolean): { text: string; at: number[]; made: [string, string][] } {
  const parts: string[] = [];
  const made: [string, string][] = [];
  if (prepared.size >= MOST_PREPARED) {
    parts.push('DEALLOCATE ALL');
    prepared.clear();
  }
  const at = list.map((w) => {
    let name = prepared.get(w.sql);
    if (!name && (!prepares || w.literals.length > MOST_PARAMETERS || firstSighting(w.sql))) {
      parts.push(written(w));
      return parts.length - 1;
    }
    if (!name) {
      name = `netledger_${PROCESS_TAG}_${++names}`;
      parts.push(`PREPARE ${name} AS ${w.sql}`);
      prepared.set(w.sql, name);
      made.push([w.sql, name]);
    }
    parts.push(w.literals.length ? `EXECUTE ${name}(${w.literals.join(', ')})` : `EXECUTE ${name}`);
    return parts.length - 1;
  });
  return { text: parts.join(';\n'), at, made };
}

async function runBatch(db: Knex, list: Waiting[]): Promise<void> {
  const client = db.client as PoolClient;
  let connection: any;
  try {
    connection = await client.acquireConnection();
  } catch (error) {
    for (const w of list) w.reject(error);
    return;
  }
  let prepared = preparedOn.get(connection);
  if (!prepared) preparedOn.set(connection, (prepared = new Map()));
  const { text, at, made } = batchText(prepared, list, !unprepared.has(db.client));
  try {
    let results: Record<string, any>[][] | null = null;
    try {
      results = await simpleQueryRows(connection, text);
    } catch {
      // Which statements the server prepared before the failure is unknown: it forgets them all.
      prepared.clear();
      await connection.query('DEALLOCATE ALL');
      for (const w of list) await connection.query(asArrays({ text: w.sql, values: w.bindings })).then((r: Parameters<typeof objectRows>[0]) => w.resolve(objectRows(r)), w.reject);
    }
    if (results) list.forEach((w, i) => w.resolve(results[at[i]]));
  } catch (error) {
    for (const [sql] of made) prepared.delete(sql);
    for (const w of list) w.reject(error);
  } finally {
    await client.releaseConnection(connection);
  }
}
