/**
 * Counter columns: a count of the schema (`counts:`, e.g. a site's `device_count`) stored on the
 * counted-into table and kept by the database's own triggers on the counted table, so every write
 * path (the API, cascades, the bench's set-based seed, raw SQL) keeps it and a page reads it instead
 * of counting (NetBox 3.6+ does the same for a device's components with its CounterCacheField).
 * The generated migrations add and drop them (generator/migration.ts, `counter:` lines).
 *
 * SQLite: row triggers (AFTER INSERT, AFTER DELETE, AFTER UPDATE OF the relation's columns), each one
 * indexed UPDATE of the parent, which SQLite runs inside the statement for a few microseconds.
 * PostgreSQL: statement triggers with transition tables for inserts and deletes, so a bulk write
 * adds one grouped UPDATE of the parents per statement and counter, not a PL/pgSQL call per row; a
 * row trigger for moves (below), since transition tables cannot go with a column list.
 */
import type { Knex } from 'knex';
import type { ModelDefinition } from '../core/types.js';
import { TAGGED_ITEMS } from './tagged-items.js';

export interface Counter {
  /** the counted-into table and its counter column */
  parent: string;
  column: string;
  /** the counted table and its column pointing at the parent (an fk, a generic relation's id, a join table's `to_id`) */
  table: string;
  fk: string;
  /** a generic relation: its type column and the parent's content type */
  type?: [string, string];
  /**
   * The PostgreSQL statement functions' form. 1 (absent, migration 1009): the planner is free, and
   * chose a hash join over a scan of the whole parent table, updating parents in no set order. 2: the
   * functions plan without hash joins, merge joins and sequential scans, so the grouped UPDATE is a
   * nested loop from the ordered groups into the parent's primary key: index lookups in id order.
   */
  form?: 2;
}

const isPg = (knex: Knex) => knex.client.driverName === 'pg';
const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Trigger (and PostgreSQL function) names: `<parent>_<column>_<event>`, within PostgreSQL's 63 characters. */
function names(c: Counter): Record<'ins' | 'del' | 'upd', string> {
  const base = `${c.parent}_${c.column}`;
  if (base.length > 59) throw new Error(`counter name too long: ${base}`);
  return { ins: `${base}_ins`, del: `${base}_del`, upd: `${base}_upd` };
}

/** The condition that a row (`new`, `old` or a transition table's row) is counted. */
function counted(c: Counter, row: string): string {
  const prefix = row ? `${row}.` : '';
  return `${prefix}${c.fk} is not null${c.type ? ` and ${prefix}${c.type[0]} = ${quote(c.type[1])}` : ''}`;
}

/** Adds the column, fills it from the rows already there, and creates the triggers that keep it. */
export async function addCounter(knex: Knex, c: Counter): Promise<void> {
  await knex.raw(`alter table ${c.parent} add column ${c.column} integer not null default 0`);
  const where = `o.${c.fk} = ${c.parent}.id${c.type ? ` and o.${c.type[0]} = ${quote(c.type[1])}` : ''}`;
  await knex.raw(`update ${c.parent} set ${c.column} = (select count(*) from ${c.table} o where ${where})`);
  await createTriggers(knex, c);
}

async function createTriggers(knex: Knex, c: Counter): Promise<void> {
  const n = names(c);
  const of = c.type ? `${c.fk}, ${c.type[0]}` : c.fk;
  if (!isPg(knex)) {
    const moved = `(old.${c.fk} is not new.${c.fk}${c.type ? ` or old.${c.type[0]} is not new.${c.type[0]}` : ''})`;
    // A generic relation's trigger runs only when a row of this type is involved.
    const sqliteMoved = c.type ? `${moved} and (old.${c.type[0]} = ${quote(c.type[1])} or new.${c.type[0]} = ${quote(c.type[1])})` : moved;
    await knex.raw(`create trigger ${n.ins} after insert on ${c.table} when ${counted(c, 'new')} begin update ${c.parent} set ${c.column} = ${c.column} + 1 where id = new.${c.fk}; end`);
    await knex.raw(`create trigger ${n.del} after delete on ${c.table} when ${counted(c, 'old')} begin update ${c.parent} set ${c.column} = ${c.column} - 1 where id = old.${c.fk}; end`);
    await knex.raw(`create trigger ${n.upd} after update of ${of} on ${c.table} when ${sqliteMoved} begin
      update ${c.parent} set ${c.column} = ${c.column} - 1 where id = old.${c.fk}${c.type ? ` and old.${c.type[0]} = ${quote(c.type[1])}` : ''};
      update ${c.parent} set ${c.column} = ${c.column} + 1 where id = new.${c.fk}${c.type ? ` and new.${c.type[0]} = ${quote(c.type[1])}` : ''};
    end`);
    return;
  }
  const parent = await inSchema(knex, c.parent);
  await statementFunctions(knex, c, parent);
  for (const [name, event, transition] of [[n.ins, 'insert', 'new_rows'], [n.del, 'delete', 'old_rows']]) {
    await knex.raw(`create trigger ${name} after ${event} on ${c.table} referencing ${event === 'insert' ? 'new' : 'old'} table as ${transition} for each statement execute function ${name}()`);
  }
  // Moves: a row trigger on the relation's columns, whose WHEN (evaluated without calling the
  // function) lets through only rows whose relation changed and that concern this parent type. A
  // statement trigger here would run on every UPDATE of the table, whatever it sets: a bulk PATCH
  // of 1000 rows with distinct values is 1000 statements, and moving 1000 addresses took 370 ms more.
  const moved = `(old.${c.fk} is distinct from new.${c.fk}${c.type ? ` or old.${c.type[0]} is distinct from new.${c.type[0]}` : ''})`;
  const relevant = c.type ? `${moved} and (old.${c.type[0]} = ${quote(c.type[1])} or new.${c.type[0]} = ${quote(c.type[1])})` : moved;
  await knex.raw(`create function ${n.upd}() returns trigger language plpgsql as $$ begin
    update ${parent} set ${c.column} = ${c.column} - 1 where id = old.${c.fk}${c.type ? ` and old.${c.type[0]} = ${quote(c.type[1])}` : ''};
    update ${parent} set ${c.column} = ${c.column} + 1 where id = new.${c.fk}${c.type ? ` and new.${c.type[0]} = ${quote(c.type[1])}` : ''};
    return null;
  end $$`);
  await knex.raw(`create trigger ${n.upd} after update of ${of} on ${c.table} for each row when (${relevant}) execute function ${n.upd}()`);
}

/**
 * The counters of the schema's models (every stored count: cumulative ones have no column). An fk
 * counts its column, a generic relation its id where its type is the parent's content type, an m2m
 * the join table's links; `*` (Tag's count of every model's tags) the tag links.
 */
export function countersOf(d: ModelDefinition, byName: Map<string, ModelDefinition>): Counter[] {
  return Object.values(d.counts).filter((c) => c.column).map((c) => {
    if (c.model === '*') return { parent: d.table, column: c.column!, table: TAGGED_ITEMS, fk: 'tag_id' };
    const other = byName.get(c.model)!;
    const f = other.fields[c.field];
    return f.type === 'm2m' ? { parent: d.table, column: c.column!, table: f.through!, fk: 'to_id' }
      : f.type === 'generic_fk' ? { parent: d.table, column: c.column!, table: other.table, fk: f.columns[1], type: [f.columns[0], d.contentType] }
        : { parent: d.table, column: c.column!, table: other.table, fk: f.columns[0] };
  });
}

/**
 * A bulk load's pause: the counter's triggers stop (SQLite: dropped; PostgreSQL: disabled, which
 * ALTER TABLE does within the transaction) until recount puts them back.
 */
export async function pauseCounter(knex: Knex, c: Counter): Promise<void> {
  for (const name of Object.values(names(c))) {
    if (isPg(knex)) await knex.raw(`alter table ${c.table} disable trigger ${name}`);
    else await knex.raw(`drop trigger if exists ${name}`);
  }
}

/** After a pause: the counts anew from the counted rows, in two set-based statements, and the triggers back. */
export async function recount(knex: Knex, c: Counter): Promise<void> {
  await knex.raw(`update ${c.parent} set ${c.column} = 0 where ${c.column} <> 0`);
  await knex.raw(`update ${c.parent} set ${c.column} = n.n from (select ${c.fk} as id, count(*) as n from ${c.table} where ${counted(c, '')} group by ${c.fk}) as n where ${c.parent}.id = n.id`);
  if (isPg(knex)) for (const name of Object.values(names(c))) await knex.raw(`alter table ${c.table} enable trigger ${name}`);
  else await createTriggers(knex, c);
}

/** A table with its schema, for trigger functions: they run under whatever search path a session has. */
export async function inSchema(knex: Knex, table: string): Promise<string> {
  const { rows } = await knex.raw('select current_schema() as s');
  return `"${rows[0].s}".${table}`;
}

/**
 * PostgreSQL: (re)creates the functions of the insert and delete statement triggers, in `c`'s form.
 * Parents are updated in id order (form 2 pins the nested loop from the ordered groups), so two bulk
 * writes touching the same parents lock them in the same order rather than deadlock, and a delete
 * of 1000 interfaces looks up their devices instead of scanning every device.
 */
async function statementFunctions(knex: Knex, c: Counter, parent: string): Promise<void> {
  const n = names(c);
  const plan = c.form === 2 ? ' set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off' : '';
  for (const [name, transition, sign] of [[n.ins, 'new_rows', '+'], [n.del, 'old_rows', '-']]) {
    await knex.raw(`create or replace function ${name}() returns trigger language plpgsql${plan} as $$ begin
      update ${parent} p set ${c.column} = p.${c.column} ${sign} n.n
        from (select ${c.fk} as id, count(*) as n from ${transition} where ${counted(c, '')} group by ${c.fk} order by 1) n where p.id = n.id;
      return null;
    end $$`);
  }
}

/**
 * A counter whose triggers' form changed (`form`), its column and its count the same: PostgreSQL's
 * statement functions are replaced in place, without recounting. SQLite's row triggers have one form.
 */
export async function renewCounter(knex: Knex, c: Counter): Promise<void> {
  if (isPg(knex)) await statementFunctions(knex, c, await inSchema(knex, c.parent));
}

/** Drops the triggers, then the column (natively: knex's SQLite dropColumn rebuilds the table, losing its triggers). */
export async function dropCounter(knex: Knex, c: Counter): Promise<void> {
  for (const name of Object.values(names(c))) {
    if (isPg(knex)) {
      await knex.raw(`drop trigger if exists ${name} on ${c.table}`);
      await knex.raw(`drop function if exists ${name}()`);
    } else await knex.raw(`drop trigger if exists ${name}`);
  }
  await knex.raw(`alter table ${c.parent} drop column ${c.column}`);
}

/**
 * SQLite alters a column by rebuilding its table (knex copies it to a new one), which loses the
 * triggers on it and fails on triggers naming it: a migration that rebuilds a table drops the counters
 * touching it first and adds them back (refilled) after. PostgreSQL alters in place: nothing to do.
 */
export async function suspendCounters(knex: Knex, list: Counter[]): Promise<void> {
  if (!isPg(knex)) for (const c of list) await dropCounter(knex, c);
}

export async function resumeCounters(knex: Knex, list: Counter[]): Promise<void> {
  if (!isPg(knex)) for (const c of list) await addCounter(knex, c);
}
