/**
 * Emits the knex migration that creates one table per model. Column types are chosen to behave the
 * same on SQLite and PostgreSQL: dates and date-times are ISO text (ordered as text), JSON is text,
 * IP networks carry 16-byte big-endian bounds so containment is a range comparison on an index.
 */
import type { FieldDefinition, ModelDefinition } from '../runtime/types.js';

function columnLines(d: ModelDefinition, f: FieldDefinition, byName: Map<string, ModelDefinition>, integerSets: Set<string>): string[] {
  const nullable = (s: string) => `${s}${f.nullable || !f.required ? '.nullable()' : '.notNullable()'};`;
  const c = f.columns;
  switch (f.type) {
    case 'string': case 'slug': case 'color': case 'mac':
      return [nullable(`t.string('${c[0]}', ${f.maxLength ?? 255})`)];
    case 'text': return [nullable(`t.text('${c[0]}')`)];
    case 'password': return [`t.string('${c[0]}', 255).notNullable();`];
    case 'integer': return [nullable(`t.bigInteger('${c[0]}')`)];
    case 'decimal': return [nullable(`t.decimal('${c[0]}', ${f.maxDigits ?? 12}, ${f.decimalPlaces ?? 2})`)];
    case 'boolean': return [`t.boolean('${c[0]}').notNullable().defaultTo(${f.default === true});`];
    case 'date': return [`t.string('${c[0]}', 10).nullable();`];
    case 'datetime': return [`t.string('${c[0]}', 32).nullable();`];
    case 'json': return [`t.text('${c[0]}').nullable();`];
    case 'choice':
      return [integerSets.has(f.choices!) ? `t.integer('${c[0]}').nullable();` : `t.string('${c[0]}', 100).nullable();`];
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
      if (f.type === 'ip_address') lines.push(`t.index(['family', '${f.name}_host'], '${d.table}_${f.name}_host_idx');`);
      return lines;
    }
    case 'token_key':
      return [`t.string('${c[0]}', 64).notNullable().unique();`, `t.string('${c[1]}', 64).notNullable();`];
    default: return [];
  }
}

/** Tables in an order where every fk target exists before the table that references it. */
function creationOrder(models: ModelDefinition[]): ModelDefinition[] {
  const byName = new Map(models.map((m) => [m.name, m]));
  const done = new Set<string>();
  const order: ModelDefinition[] = [];
  const visit = (m: ModelDefinition, trail: string[]) => {
    if (done.has(m.name)) return;
    if (trail.includes(m.name)) throw new Error(`fk cycle between tables: ${[...trail, m.name].join(' → ')}`);
    for (const f of Object.values(m.fields)) {
      if ((f.type === 'fk' || f.type === 'm2m') && f.to !== m.name) visit(byName.get(f.to!)!, [...trail, m.name]);
    }
    done.add(m.name);
    order.push(m);
  };
  for (const m of [...models].sort((a, b) => a.name.localeCompare(b.name))) visit(m, []);
  return order;
}

export function buildInitialMigration(models: ModelDefinition[], integerSets: Set<string>): string {
  const byName = new Map(models.map((m) => [m.name, m]));
  const order = creationOrder(models);
  const blocks = order.map((d) => {
    const lines = ["t.increments('id').primary();"];
    if (d.tree) lines.push("t.string('_path', 512).notNullable().defaultTo('');", "t.integer('_depth').notNullable().defaultTo(0);", "t.string('_sort', 2048).notNullable().defaultTo('');", `t.index(['_path'], '${d.table}_path_idx');`);
    for (const f of Object.values(d.fields)) lines.push(...columnLines(d, f, byName, integerSets));
    if (d.customFields) lines.push("t.text('custom_field_data').notNullable().defaultTo('{}');");
    if (d.timestamps) lines.push("t.string('created', 32).nullable();", "t.string('last_updated', 32).nullable();");
    for (const f of Object.values(d.fields)) {
      if (f.unique) lines.push(`t.unique(['${f.columns[0]}'], { indexName: '${d.table}_${f.name}_key' });`);
    }
    for (const group of d.uniqueTogether) {
      const columns = group.flatMap((name) => d.fields[name].columns);
      lines.push(`t.unique([${columns.map((c) => `'${c}'`).join(', ')}], { indexName: '${d.table}_${group.join('_')}_key' });`);
    }
    const m2m = Object.values(d.fields).filter((f) => f.type === 'm2m').map((f) => {
      const target = byName.get(f.to!)!;
      return `  await knex.schema.createTable('${f.through}', (t) => {
    t.increments('id').primary();
    t.integer('from_id').unsigned().notNullable().references('id').inTable('${d.table}').onDelete('CASCADE');
    t.integer('to_id').unsigned().notNullable().references('id').inTable('${target.table}').onDelete('CASCADE');
    t.unique(['from_id', 'to_id'], { indexName: '${f.through}_key' });
    t.index(['to_id'], '${f.through}_to_idx');
  });`;
    });
    return [`  await knex.schema.createTable('${d.table}', (t) => {\n${lines.map((l) => `    ${l}`).join('\n')}\n  });`, ...m2m].join('\n');
  });
  const drops = [...order].reverse().flatMap((d) => [
    ...Object.values(d.fields).filter((f) => f.type === 'm2m').map((f) => `  await knex.schema.dropTableIfExists('${f.through}');`),
    `  await knex.schema.dropTableIfExists('${d.table}');`,
  ]);
  return `import type { Knex } from 'knex';

/** Creates every model table. */
export async function up(knex: Knex): Promise<void> {
${blocks.join('\n')}
}

export async function down(knex: Knex): Promise<void> {
${drops.join('\n')}
}
`;
}
