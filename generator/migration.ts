/**
 * Emits the knex migration that creates one table per model. Column types are chosen to behave the
 * same on SQLite and PostgreSQL: dates and date-times are ISO text (ordered as text), JSON is text,
 * IP networks carry 16-byte big-endian bounds so containment is a range comparison on an index.
 */
import type { FieldDefinition, ModelDefinition } from '../runtime/core/types.js';
import { countersOf, type Counter } from '../runtime/data/counter-columns.js';

function columnLines(d: ModelDefinition, f: FieldDefinition, byName: Map<string, ModelDefinition>, integerSets: Set<string>): string[] {
  const nullable = (s: string) => `${s}${f.nullable || !f.required ? '.nullable()' : '.notNullable()'};`;
  const c = f.columns;
  switch (f.type) {
    case 'string': case 'slug': case 'color': case 'mac':
      return [nullable(`t.string('${c[0]}', ${f.maxLength ?? 255})`), ...(f.natural ? [`t.string('${c[1]}', 1024).nullable();`, `t.index(['${c[1]}'], '${d.table}_${c[1]}_idx');`] : [])];
    case 'text': return [nullable(`t.text('${c[0]}')`)];
    case 'password': return [`t.string('${c[0]}', 255).notNullable();`];
    // the uploaded file's name, blank when there is none (the bytes are in core_stored_file)
    case 'image': return [`t.string('${c[0]}', 100).notNullable().defaultTo('');`];
    case 'integer': return [nullable(`t.bigInteger('${c[0]}')`)];
    case 'decimal': return [nullable(`t.decimal('${c[0]}', ${f.maxDigits ?? 12}, ${f.decimalPlaces ?? 2})`)];
    case 'boolean': return [`t.boolean('${c[0]}').notNullable().defaultTo(${f.default === true});`];
    case 'date': return [`t.string('${c[0]}', 10).nullable();`];
    case 'datetime': return [`t.string('${c[0]}', 32).nullable();`];
    case 'json': return [`t.text('${c[0]}').nullable();`];
    case 'choice':
      // a choice column is 100 wide unless the schema gives its width (a cable end: one letter)
      return [integerSets.has(f.choices!) ? `t.integer('${c[0]}').nullable();` : `t.string('${c[0]}', ${f.maxLength ?? 100}).nullable();`];
    case 'fk': {
      const target = byName.get(f.to!)!;
      const onDelete = f.onDelete === 'cascade' ? 'CASCADE' : f.onDelete === 'set_null' ? 'SET NULL' : 'RESTRICT';
      return [
        `t.integer('${c[0]}').unsigned().nullable().references('id').inTable('${target.table}').onDelete('${onDelete}');`,
        `t.index(['${c[0]}'], '${d.table}_${c[0]}_idx');`,
      ];
    }
    case 'generic_fk':
      return [
        `t.string('${c[0]}', 100).nullable();`,
        `t.bigInteger('${c[1]}').nullable();`,
        `t.index(['${c[0]}', '${c[1]}'], '${d.table}_${f.name}_idx');`,
      ];
    case 'ip_prefix': case 'ip_address': {
      const lines = [`t.string('${f.name}', 64).notNullable();`];
      if (f.type === 'ip_address') lines.push(`t.binary('${f.name}_host', 16).notNullable();`);
      lines.push(
        `t.binary('${f.name}_first', 16).notNullable();`,
        `t.binary('${f.name}_last', 16).notNullable();`,
        `t.integer('${f.name}_length').notNullable();`,
        `t.index(['family', '${f.name}_first', '${f.name}_last'], '${d.table}_${f.name}_range_idx');`,
      );
      // The sort columns of the default order ride along, so that a `parent=` page sorts its matches from the index alone.
      if (f.type === 'ip_address') lines.push(`t.index(['family', '${f.name}_host', '${f.name}_first', '${f.name}_length'], '${d.table}_${f.name}_host_idx');`);
      return lines;
    }
    case 'token_key':
      return [`t.string('${c[0]}', 64).notNullable().unique();`, `t.string('${c[1]}', 64).notNullable();`];
    default: return [];
  }
}

/**
 * Tables in an order where every fk target exists before the table that references it. An fk that
 * closes a cycle (a module sits in a bay, and a bay may belong to a module) cannot be created with
 * its table: it is returned in `late` (`Model.field`) and added once every table exists.
 */
function creationOrder(models: ModelDefinition[]): { order: ModelDefinition[]; late: Set<string> } {
  const byName = new Map(models.map((m) => [m.name, m]));
  const done = new Set<string>();
  const late = new Set<string>();
  const order: ModelDefinition[] = [];
  const visit = (m: ModelDefinition, trail: string[]) => {
    if (done.has(m.name)) return;
    for (const f of Object.values(m.fields)) {
      if ((f.type !== 'fk' && f.type !== 'm2m') || f.to === m.name) continue;
      if (trail.includes(f.to!)) {
        if (f.type === 'm2m') throw new Error(`m2m cycle between tables: ${[...trail, m.name, f.to].join(' → ')}`);
        late.add(`${m.name}.${f.name}`);
        continue;
      }
      visit(byName.get(f.to!)!, [...trail, m.name]);
    }
    done.add(m.name);
    order.push(m);
  };
  for (const m of [...models].sort((a, b) => a.name.localeCompare(b.name))) visit(m, [m.name]);
  return { order, late };
}

/** The columns that identify a field's value in a unique key (not a natural name's sort key). */
export function keyColumns(f: FieldDefinition): string[] {
  return f.natural ? [f.columns[0]] : f.columns;
}

/** The definition lines of one table (`t.string('name', 100).notNullable();` …), as knex builds it. */
export interface TableSpec {
  table: string;
  lines: string[];
}

/** Every table — model tables and their join tables — in an order where fk targets come first. */
export function tableSpecs(models: ModelDefinition[], integerSets: Set<string>): TableSpec[] {
  const byName = new Map(models.map((m) => [m.name, m]));
  const { order, late } = creationOrder(models);
  return order.filter((d) => !d.systemTable).flatMap((d) => {
    const lines = ["t.increments('id').primary();"];
    if (d.tree) lines.push("t.string('_path', 512).notNullable().defaultTo('');", "t.integer('_depth').notNullable().defaultTo(0);", "t.string('_sort', 2048).notNullable().defaultTo('');", `t.index(['_path'], '${d.table}_path_idx');`);
    for (const f of Object.values(d.fields)) {
      const columns = columnLines(d, f, byName, integerSets);
      lines.push(...(late.has(`${d.name}.${f.name}`) ? columns.map((l) => `late:${l}`) : columns));
    }
    if (d.customFields) lines.push("t.text('custom_field_data').notNullable().defaultTo('{}');");
    if (d.timestamps) lines.push("t.string('created', 32).nullable();", "t.string('last_updated', 32).nullable();");
    // a unique key over a column that closes a cycle waits for that column
    const lateColumns = new Set(Object.values(d.fields).filter((f) => late.has(`${d.name}.${f.name}`)).flatMap((f) => f.columns));
    const keyLine = (columns: string[], line: string) => (columns.some((c) => lateColumns.has(c)) ? `late:${line}` : line);
    for (const f of Object.values(d.fields)) {
      if (f.unique) lines.push(keyLine([f.columns[0]], `t.unique(['${f.columns[0]}'], { indexName: '${d.table}_${f.name}_key' });`));
    }
    for (const group of d.uniqueTogether) {
      const columns = group.flatMap((name) => keyColumns(d.fields[name]));
      const index = `${d.table}_${group.join('_')}_key`;
      const blank = group.filter((name) => d.uniqueBlankExempt?.includes(name));
      if (blank.length) {
        // a blank value is exempt (NetBox's condition): a partial index, which SQLite and PostgreSQL both have
        lines.push(`raw:CREATE UNIQUE INDEX ${index} ON ${d.table} (${columns.join(', ')}) WHERE ${blank.map((name) => `${d.fields[name].columns[0]} <> ''`).join(' AND ')}`);
      } else if (group.some((name) => d.uniqueNullsMatch.includes(name))) {
        // NULL never equals NULL in an index, so a relation whose null counts as a value is indexed as 0.
        const parts = group.flatMap((name) => keyColumns(d.fields[name]).map((c) => (d.uniqueNullsMatch.includes(name) ? `COALESCE(${c}, 0)` : c)));
        lines.push(`raw:CREATE UNIQUE INDEX ${index} ON ${d.table} (${parts.join(', ')})`);
      } else lines.push(keyLine(columns, `t.unique([${columns.map((c) => `'${c}'`).join(', ')}], { indexName: '${index}' });`));
    }
    const ordering = orderingIndex(d);
    if (ordering) lines.push(ordering);
    lines.push(...counterLines(d, byName), TALLY);
    dropCoveredIndexes(d.table, lines);
    const joins = Object.values(d.fields).filter((f) => f.type === 'm2m').map((f) => ({
      table: f.through!,
      lines: [
        "t.increments('id').primary();",
        `t.integer('from_id').unsigned().notNullable().references('id').inTable('${d.table}').onDelete('CASCADE');`,
        `t.integer('to_id').unsigned().notNullable().references('id').inTable('${byName.get(f.to!)!.table}').onDelete('CASCADE');`,
        `t.unique(['from_id', 'to_id'], { indexName: '${f.through}_key' });`,
        `t.index(['to_id'], '${f.through}_to_idx');`,
      ],
    }));
    return [{ table: d.table, lines }, ...joins];
  });
}

/**
 * A relation's own index is left out when a unique index of the table starts with its column (a
 * component's device beside its unique device and name): that index answers the same lookups (the
 * foreign key's checks and cascades, filters, counts), and every insert, update and delete would
 * otherwise keep one more index. Partial unique indexes (blank names exempt) answer only some rows,
 * and one whose first part is an expression (COALESCE) answers no lookup of the column: both leave
 * the relation its own index.
 */
function dropCoveredIndexes(table: string, lines: string[]): void {
  const leading = new Set<string>();
  for (const line of lines) {
    const unique = /^t\.unique\(\['(\w+)'/.exec(line);
    const raw = /^raw:CREATE UNIQUE INDEX \w+ ON \w+ \((\w+)[,)]/.exec(line);
    if (unique) leading.add(unique[1]);
    else if (raw && !/ WHERE /.test(line)) leading.add(raw[1]);
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    const own = /^t\.index\(\['(\w+)'\], '(\w+)'\);$/.exec(lines[i]);
    if (own && own[2] === `${table}_${own[1]}_idx` && leading.has(own[1])) lines.splice(i, 1);
  }
}

/**
 * The stored counts of a model (every count but a tree's cumulative ones), as `counter:<json>` lines:
 * a counter column on its table, kept by triggers on the counted table (runtime/data/counter-columns.ts).
 */
function counterLines(d: ModelDefinition, byName: Map<string, ModelDefinition>): string[] {
  return countersOf(d, byName).map(counterLine);
}

const counterLine = (counter: Counter) => `counter:${JSON.stringify({ ...counter, form: 2 })}`;

/**
 * An index on exactly what the default order of a list sorts by (runtime/http/list-query.ts, applyOrdering:
 * nulls first through a CASE, natural names by their key, networks by family and bounds, then id), so
 * the default page of a large table reads the first rows of an index instead of sorting the table.
 */
function orderingIndex(d: ModelDefinition): string | null {
  const parts: string[] = [];
  for (const raw of d.tree ? ['_sort'] : d.ordering) {
    const desc = raw.startsWith('-') ? ' DESC' : '';
    const name = raw.replace(/^-/, '');
    if (name === 'id') continue;
    if (name === '_sort' || name === 'created' || name === 'last_updated') { parts.push(`${name}${desc}`); continue; }
    const field = d.fields[name]?.type === 'alias' ? d.fields[d.fields[name].of!] : d.fields[name];
    if (!field || !field.columns.length || ['password', 'token_key', 'json'].includes(field.type)) continue;
    if (field.type === 'ip_prefix' || field.type === 'ip_address') {
      parts.push(`family${desc}`, `${name}_first${desc}`, `${name}_length${desc}`, ...(field.type === 'ip_address' ? [`${name}_host${desc}`] : []));
      continue;
    }
    const column = field.natural ? field.columns[1] : field.columns[0];
    parts.push(`(case when ${column} is null then 0 else 1 end)${desc}`, `${column}${desc}`);
  }
  return parts.length ? `raw:CREATE INDEX ${d.table}_ordering_idx ON ${d.table} (${[...parts, 'id'].join(', ')})` : null;
}

/** What the generated migrations have built so far: table → definition lines. */
export type Snapshot = Record<string, string[]>;

const indent = (lines: string[]) => lines.map((l) => `    ${l}`).join('\n');

/** Lines are knex table-builder calls (`t.…`) or whole statements (`raw:CREATE UNIQUE INDEX …`). */
const isRaw = (l: string) => l.startsWith('raw:');
/** `late:` lines are columns of an fk that closes a cycle: added after every table is created. */
const isLate = (l: string) => l.startsWith('late:');
const unlate = (l: string) => l.slice(5);
const statement = (l: string) => `  await knex.raw(${JSON.stringify(l.slice(4))});`;
const dropStatement = (l: string) => `  await knex.raw(${JSON.stringify(`DROP INDEX IF EXISTS ${/INDEX (\w+)/.exec(l)![1]}`)});`;

function createTable(spec: TableSpec): string[] {
  return [`  await knex.schema.createTable('${spec.table}', (t) => {\n${indent(spec.lines.filter((l) => !isRaw(l) && !isLate(l)))}\n  });`, ...spec.lines.filter(isRaw).map(statement)];
}

/** The late columns of a table, added to it once every table exists. */
function addLate(table: string, lines: string[]): string[] {
  const late = lines.filter(isLate).map(unlate);
  return late.length ? [`  await knex.schema.alterTable('${table}', (t) => {\n${indent(late)}\n  });`] : [];
}

/** `counter:` lines are counter columns with their triggers: added once every table exists, dropped first. */
const isCounter = (l: string) => l.startsWith('counter:');
const addCounterCall = (l: string) => `  await addCounter(knex, ${l.slice(8)});`;
const dropCounterCall = (l: string) => `  await dropCounter(knex, ${l.slice(8)});`;
const renewCounterCall = (l: string) => `  await renewCounter(knex, ${l.slice(8)});`;
/** A counter's column and what it counts, without its triggers' form: a change of form alone renews the triggers, keeping the column. */
const counterIdentity = (l: string) => { const { form: _form, ...counter } = JSON.parse(l.slice(8)) as Counter; return JSON.stringify(counter); };

/** The `tally` line: the model table's row tally (runtime/data/row-tallies.ts), added once the table exists, dropped before it goes. */
const TALLY = 'tally';
const isTally = (l: string) => l === TALLY;
const addTallyCall = (table: string) => `  await addTally(knex, '${table}');`;
const dropTallyCall = (table: string) => `  await dropTally(knex, '${table}');`;

function migrationText(doc: string, up: string[], down: string[]): string {
  const uses = (name: string) => [...up, ...down].some((l) => l.includes(`await ${name}(`));
  const used = ['addCounter', 'dropCounter', 'renewCounter', 'suspendCounters', 'resumeCounters'].filter(uses);
  const tallies = ['addTally', 'dropTally'].filter(uses);
  return `import type { Knex } from 'knex';
${used.length ? `import { ${used.join(', ')} } from '../../runtime/data/counter-columns.js';\n` : ''}${tallies.length ? `import { ${tallies.join(', ')} } from '../../runtime/data/row-tallies.js';\n` : ''}
/** ${doc} */
export async function up(knex: Knex): Promise<void> {
${up.join('\n')}
}

export async function down(knex: Knex): Promise<void> {
${down.join('\n')}
}
`;
}

/** The column, index or unique constraint a definition line creates, and how to undo it. */
function undo(line: string): string | null {
  const column = /^t\.\w+\('([^']+)'/.exec(line);
  const index = /^t\.index\(\[[^\]]*\], '([^']+)'\)/.exec(line);
  const unique = /^t\.unique\((\[[^\]]*\]), \{ indexName: '([^']+)' \}\)/.exec(line);
  if (index) return `t.dropIndex([], '${index[1]}');`;
  if (unique) return `t.dropUnique(${unique[1]}, '${unique[2]}');`;
  if (column) return `t.dropColumn('${column[1]}');`;
  return null;
}

/**
 * The migrations of a schema change: on a first run (no snapshot) one migration creates every
 * table; afterwards each change adds one migration with the new tables and the added, changed
 * and removed columns and indexes, so existing databases follow the schema. Old migration files
 * are never rewritten. Columns added to an existing table are nullable (its rows have no value).
 */
export function buildMigrations(allSpecs: TableSpec[], allPrevious: Snapshot | null, existing: string[]): { files: Map<string, string>; snapshot: Snapshot } {
  const snapshot: Snapshot = Object.fromEntries(allSpecs.map((s) => [s.table, s.lines]));
  const files = new Map<string, string>();
  const countersNow = allSpecs.flatMap((s) => s.lines.filter(isCounter));
  const countersBefore = Object.values(allPrevious ?? {}).flatMap((lines) => lines.filter(isCounter));
  const talliesNow = allSpecs.filter((s) => s.lines.some(isTally)).map((s) => s.table);
  const talliesBefore = Object.entries(allPrevious ?? {}).filter(([, lines]) => lines.some(isTally)).map(([table]) => table);
  const talliesAdded = talliesNow.filter((t) => !talliesBefore.includes(t));
  const talliesRemoved = talliesBefore.filter((t) => !talliesNow.includes(t));
  const plain = (l: string) => !isCounter(l) && !isTally(l);
  const specs = allSpecs.map((s) => ({ table: s.table, lines: s.lines.filter(plain) }));
  const previous = allPrevious && Object.fromEntries(Object.entries(allPrevious).map(([t, lines]) => [t, lines.filter(plain)]));
  const identitiesNow = new Set(countersNow.map(counterIdentity));
  const identitiesBefore = new Map(countersBefore.map((l) => [counterIdentity(l), l]));
  const countersAdded = countersNow.filter((l) => !identitiesBefore.has(counterIdentity(l)));
  const countersRemoved = countersBefore.filter((l) => !identitiesNow.has(counterIdentity(l)));
  /** kept counters whose triggers' form changed: [now, before] */
  const countersRenewed = countersNow.filter((l) => identitiesBefore.has(counterIdentity(l)) && !countersBefore.includes(l)).map((l) => [l, identitiesBefore.get(counterIdentity(l))!]);
  if (!previous) {
    const up = [...specs.flatMap(createTable), ...specs.flatMap((spec) => addLate(spec.table, spec.lines)), ...countersNow.map(addCounterCall), ...talliesNow.map(addTallyCall)];
    const down = [...talliesNow.map(dropTallyCall), ...countersNow.map(dropCounterCall), ...[...specs].reverse().map((s) => `  await knex.schema.dropTableIfExists('${s.table}');`)];
    files.set('0001_initial', migrationText('Creates every model table.', up, down));
    return { files, snapshot };
  }
  const up: string[] = [];
  const down: string[] = [];
  /** tables whose columns change: SQLite rebuilds them */
  const altered = new Set<string>();
  const lateUp: string[] = [];
  const lateDown: string[] = [];
  for (const spec of specs) {
    const before = previous[spec.table];
    if (!before) {
      up.push(...createTable(spec));
      lateUp.push(...addLate(spec.table, spec.lines));
      down.unshift(`  await knex.schema.dropTableIfExists('${spec.table}');`);
      continue;
    }
    const lateAdded = spec.lines.filter((l) => isLate(l) && !before.includes(l) && !before.includes(unlate(l)));
    lateUp.push(...addLate(spec.table, lateAdded.map((l) => l.replace('.notNullable();', '.nullable();'))));
    const lateUndo = lateAdded.map((l) => undo(unlate(l))).filter((l): l is string => !!l);
    if (lateUndo.length) lateDown.push(`  await knex.schema.alterTable('${spec.table}', (t) => {\n${indent([...lateUndo.filter((l) => /^t\.drop(Index|Unique)/.test(l)), ...lateUndo.filter((l) => !/^t\.drop(Index|Unique)/.test(l))])}\n  });`);
    // A column that merely became (or stopped being) late is the same column.
    const same = (l: string, list: string[]) => list.includes(l) || list.includes(isLate(l) ? unlate(l) : `late:${l}`);
    const added = spec.lines.filter((l) => !isLate(l) && !same(l, before));
    const removed = before.filter((l) => !same(l, spec.lines)).map((l) => (isLate(l) ? unlate(l) : l));
    if (!added.length && !removed.length) continue;
    // A column whose definition changed is altered in place (its data stays); others are added or dropped.
    const columnOf = (l: string) => /^t\.(?!index|unique)\w+\('([^']+)'/.exec(l)?.[1];
    const changed = new Set(added.map(columnOf).filter((c) => c && removed.some((r) => columnOf(r) === c)));
    const alter = (l: string) => l.replace(/;$/, '.alter();');
    // Indexes go before their columns (PostgreSQL drops an index together with its column).
    const indexesFirst = (lines: string[]) => [...lines.filter((l) => /^t\.drop(Index|Unique)/.test(l)), ...lines.filter((l) => !/^t\.drop(Index|Unique)/.test(l))];
    const forward = [
      ...indexesFirst(removed.filter((l) => !changed.has(columnOf(l))).map(undo).filter((l): l is string => !!l)),
      ...added.map((l) => (changed.has(columnOf(l)) ? alter(l) : l.replace('.notNullable();', '.nullable();'))),
    ];
    const backward = [
      ...indexesFirst(added.filter((l) => !changed.has(columnOf(l))).map(undo).filter((l): l is string => !!l)),
      ...removed.map((l) => (changed.has(columnOf(l)) ? alter(l) : l)),
    ];
    const alterTable = (lines: string[]) => (lines.length ? [`  await knex.schema.alterTable('${spec.table}', (t) => {\n${indent(lines)}\n  });`] : []);
    // Index lines alone (created or dropped) leave the table's columns as they are: SQLite rebuilds nothing.
    const rebuilds = (l: string) => !isRaw(l) && !/^t\.(index|unique|dropIndex|dropUnique)\(/.test(l);
    if (forward.some(rebuilds) || backward.some(rebuilds)) altered.add(spec.table);
    up.push(...removed.filter(isRaw).map(dropStatement), ...alterTable(forward.filter((l) => !isRaw(l))), ...added.filter(isRaw).map(statement));
    down.unshift(...added.filter(isRaw).map(dropStatement), ...alterTable(backward.filter((l) => !isRaw(l))), ...removed.filter(isRaw).map(statement));
  }
  for (const table of Object.keys(previous).filter((t) => !snapshot[t])) {
    up.push(`  await knex.schema.dropTableIfExists('${table}');`);
    down.unshift(...createTable({ table, lines: previous[table] }), ...addLate(table, previous[table]));
  }
  up.push(...lateUp);
  down.unshift(...lateDown);
  // Counters go before the tables and columns they use change, and come back after; those kept
  // that touch a table SQLite rebuilds step aside meanwhile (runtime/data/counter-columns.ts).
  const touching = countersNow.filter((l) => identitiesBefore.has(counterIdentity(l))).filter((l) => {
    const c = JSON.parse(l.slice(8)) as Counter;
    return altered.has(c.parent) || altered.has(c.table);
  });
  const aside = touching.length ? `[\n${touching.map((l) => `    ${l.slice(8)},`).join('\n')}\n  ]` : '';
  if (touching.length) {
    up.unshift(`  await suspendCounters(knex, ${aside});`);
    up.push(`  await resumeCounters(knex, ${aside});`);
    down.unshift(`  await suspendCounters(knex, ${aside});`);
    down.push(`  await resumeCounters(knex, ${aside});`);
  }
  up.unshift(...countersRemoved.map(dropCounterCall));
  up.push(...countersAdded.map(addCounterCall), ...countersRenewed.map(([now]) => renewCounterCall(now)));
  down.unshift(...countersAdded.map(dropCounterCall));
  down.push(...countersRemoved.map(addCounterCall), ...countersRenewed.map(([, before]) => renewCounterCall(before)));
  // Tallies start once their table exists and stop before it goes.
  up.unshift(...talliesRemoved.map(dropTallyCall));
  up.push(...talliesAdded.map(addTallyCall));
  down.unshift(...talliesAdded.map(dropTallyCall));
  down.push(...talliesRemoved.map(addTallyCall));
  if (!up.length) return { files, snapshot };
  const next = existing.filter((n) => /^1\d{3}_/.test(n)).length + 1001;
  files.set(`${next}_schema`, migrationText('Brings the tables in line with a change of schema/.', up, down));
  return { files, snapshot };
}
