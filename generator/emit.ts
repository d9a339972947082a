/**
 * Builds every generated file in memory (path → text) with ts-morph. Nothing here touches the disk;
 * main.ts stamps the header and writes.
 */
import { Project, VariableDeclarationKind, Scope, type SourceFile } from 'ts-morph';
import type { ChoiceSet, FieldDefinition, ModelDefinition, ModelEntry } from '../runtime/core/types.js';
import type { ResolvedSchema } from './resolve.js';
import { camelName, modelFolder } from './naming.js';
import { buildOpenApi } from './openapi.js';
import { buildMigrations, tableSpecs, type Snapshot } from './migration.js';
import { documentFile, entriesInVersion } from './versions.js';

export interface GeneratedFile {
  text: string;
  /** the YAML file(s) the text comes from, named in the header */
  source: string;
  /** one sentence saying what the file holds */
  summary: string;
}

export type FileMap = Map<string, GeneratedFile>;

const project = new Project({ useInMemoryFileSystem: true });

/** TypeScript source for a plain data value: stable key order as given, identifiers unquoted. */
export function literal(value: unknown, indent = ''): string {
  const next = indent + '  ';
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value).replace(/\u2028|\u2029/g, '');
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    const items = value.map((v) => literal(v, next));
    const flat = `[${items.join(', ')}]`;
    return flat.length + indent.length < 100 && !flat.includes('\n') ? flat : `[\n${items.map((i) => next + i).join(',\n')},\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (!entries.length) return '{}';
  const parts = entries.map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literal(v, next)}`);
  const flat = `{ ${parts.join(', ')} }`;
  return flat.length + indent.length < 100 && !flat.includes('\n') ? flat : `{\n${parts.map((p) => next + p).join(',\n')},\n${indent}}`;
}

function sourceFile(path: string): SourceFile {
  return project.createSourceFile(path, '', { overwrite: true });
}

function finish(sf: SourceFile): string {
  sf.formatText({ indentSize: 2, convertTabsToSpaces: true });
  return sf.getFullText();
}

function tsType(f: FieldDefinition): string {
  switch (f.type) {
    case 'integer': case 'decimal': return 'number';
    case 'boolean': return 'boolean';
    case 'json': return 'unknown';
    case 'choice': return 'string | number';
    default: return 'string';
  }
}

function modelFile(entry: ModelEntry, entries: ModelEntry[]): string {
  const d = entry.definition;
  const sf = sourceFile(`${d.endpoint}/model.ts`);
  const className = `${d.name}Model`;
  const folder = modelFolder(d.app, d.endpoint);
  sf.addImportDeclaration({ moduleSpecifier: 'objection', namedImports: ['Model'] });
  sf.addImportDeclaration({ moduleSpecifier: '../../../runtime/core/types.js', namedImports: ['ModelDefinition'], isTypeOnly: true });
  const related = [...new Set(Object.values(d.fields).filter((f) => f.type === 'fk' && f.to !== d.name).map((f) => f.to!))].sort();
  for (const name of related) {
    const target = entries.find((e) => e.definition.name === name)!.definition;
    const path = modelFolder(target.app, target.endpoint);
    sf.addImportDeclaration({ moduleSpecifier: `${relativeTo(folder, path)}/model.js`, namedImports: [`${name}Model`] });
  }
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`Resolved definition of ${d.name}: fields, counts and rules the runtime applies.`],
    declarations: [{ name: `${camelName(d.name)}Definition`, type: 'ModelDefinition', initializer: literal(d) }],
  });
  const fkFields = Object.values(d.fields).filter((f) => f.type === 'fk');
  const mappings = fkFields.map((f) => {
    const target = entries.find((e) => e.definition.name === f.to)!.definition;
    return `${f.name}: { relation: Model.BelongsToOneRelation, modelClass: ${f.to}Model, join: { from: '${d.table}.${f.columns[0]}', to: '${target.table}.id' } }`;
  });
  const cls = sf.addClass({
    name: className,
    isExported: true,
    extends: 'Model',
    docs: [`Objection model of ${d.table}: table metadata and relations only; queries go through the runtime.`],
  });
  cls.addProperty({ name: 'tableName', isStatic: true, initializer: `'${d.table}'` });
  cls.addProperty({ name: 'relationMappings', isStatic: true, initializer: `() => ({${mappings.length ? `\n  ${mappings.join(',\n  ')},\n` : ''}})` });
  cls.addProperty({ name: 'id', type: 'number', hasExclamationToken: true, scope: Scope.Public });
  for (const f of Object.values(d.fields)) {
    for (const column of f.columns) {
      if (column.endsWith('_first') || column.endsWith('_last') || column.endsWith('_host')) continue;
      const type = column.endsWith('_id') || column.endsWith('_length') ? 'number' : f.type === 'generic_fk' ? 'string' : tsType(f);
      cls.addProperty({ name: column, type: f.nullable || column.endsWith('_type') ? `${type} | null` : type, hasExclamationToken: true });
    }
  }
  return finish(sf);
}

function relativeTo(from: string, to: string): string {
  return `../../${to}`.replace(`../../${from.split('/')[0]}/`, '../');
}

function dataFile(name: string, typeName: string, value: unknown, doc: string): string {
  const sf = sourceFile(`${name}.ts`);
  sf.addImportDeclaration({ moduleSpecifier: '../../../runtime/core/types.js', namedImports: [typeName], isTypeOnly: true });
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [doc],
    declarations: [{ name, type: typeName, initializer: literal(value) }],
  });
  return finish(sf);
}

function registryFile(entries: ModelEntry[]): string {
  const sf = sourceFile('registry.ts');
  sf.addImportDeclaration({ moduleSpecifier: '../runtime/core/types.js', namedImports: ['ModelEntry'], isTypeOnly: true });
  sf.addImportDeclaration({ moduleSpecifier: 'objection', namedImports: ['Model'], isTypeOnly: true });
  for (const { definition: d } of entries) {
    const base = camelName(d.name);
    const folder = `./${modelFolder(d.app, d.endpoint)}`;
    sf.addImportDeclaration({ moduleSpecifier: `${folder}/model.js`, namedImports: [`${base}Definition`, `${d.name}Model`] });
    sf.addImportDeclaration({ moduleSpecifier: `${folder}/serializer.js`, namedImports: [`${base}Serializer`] });
    sf.addImportDeclaration({ moduleSpecifier: `${folder}/filterset.js`, namedImports: [`${base}FilterSet`] });
    sf.addImportDeclaration({ moduleSpecifier: `${folder}/routes.js`, namedImports: [`${base}Routes`] });
  }
  const names = entries.map((e) => e.definition.name);
  sf.addTypeAlias({ name: 'ModelName', isExported: true, type: names.map((n) => `'${n}'`).join(' | ') });
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['Every model, keyed by name: definition, serializer, filter set and routes.'],
    declarations: [{
      name: 'models',
      type: 'Record<ModelName, ModelEntry>',
      initializer: `{\n${entries.map(({ definition: d }) => {
        const b = camelName(d.name);
        return `  ${d.name}: { definition: ${b}Definition, serializer: ${b}Serializer, filters: ${b}FilterSet, routes: ${b}Routes }`;
      }).join(',\n')},\n}`,
    }],
  });
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['Objection model classes, keyed by model name.'],
    declarations: [{ name: 'objectionModels', type: 'Record<ModelName, typeof Model>', initializer: `{\n${names.map((n) => `  ${n}: ${n}Model`).join(',\n')},\n}` }],
  });
  return finish(sf);
}

/** A generated file of one exported constant `name`, of `type` (a type of runtime/core/types.ts, `typeName`), holding `value`. */
function constantFile(file: string, typeName: string, type: string, name: string, doc: string, value: unknown): string {
  const sf = sourceFile(file);
  sf.addImportDeclaration({ moduleSpecifier: '../runtime/core/types.js', namedImports: [typeName], isTypeOnly: true });
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [doc],
    declarations: [{ name, type, initializer: literal(value) }],
  });
  return finish(sf);
}

/** generated/versions.ts: the versions served, each with the NetBox release it answers as and its OpenAPI document. */
function versionsFile(versions: ResolvedSchema['versions']): string {
  const value = { default: versions.default, versions: versions.versions.map((v) => ({ version: v.version, netbox: v.netbox, document: documentFile(versions, v.version), ...(v.cursor_pagination ? { cursorPagination: true } : {}), ...(v.field_selection ? { fieldSelection: true } : {}), ...(v.etags ? { etags: true } : {}), ...(v.partial_tags ? { partialTags: true } : {}) })) };
  return constantFile('versions.ts', 'ApiVersions', 'ApiVersions', 'apiVersions', 'The API versions served side by side (schema/versions.yaml).', value);
}

/** generated/menu.ts: the web interface's menu (schema/menu.yaml), every model in it. */
function menuFile(menu: ResolvedSchema['menu']): string {
  return constantFile('menu.ts', 'NavigationMenu', 'NavigationMenu[]', 'navigation', 'The menus of the web interface, in order (schema/menu.yaml).', menu);
}

function choicesFile(sets: ChoiceSet[]): string {
  return constantFile('choices.ts', 'ChoiceSet', 'Record<string, ChoiceSet>', 'choiceSets', 'Shared choice sets, keyed by name.', Object.fromEntries(sets.map((s) => [s.name, s])));
}

/** The migrations already generated (name → text without header) and the snapshot they were built to. */
export interface MigrationState {
  snapshot: Snapshot | null;
  existing: Map<string, string>;
}

export function buildFiles(schema: ResolvedSchema, migrations: MigrationState): FileMap {
  const files: FileMap = new Map();
  const { entries, choiceSets } = schema;
  for (const entry of entries) {
    const d = entry.definition;
    const folder = modelFolder(d.app, d.endpoint);
    const base = camelName(d.name);
    files.set(`${folder}/model.ts`, { text: modelFile(entry, entries), source: d.source, summary: `The ${d.name} model: its resolved definition and its Objection class.` });
    files.set(`${folder}/serializer.ts`, {
      text: dataFile(`${base}Serializer`, 'SerializerDefinition', entry.serializer, `Fields of the ${d.name} representations, in order.`),
      source: d.source, summary: `The ${d.name} serializer: full, brief and nested field lists.`,
    });
    files.set(`${folder}/filterset.ts`, {
      text: dataFile(`${base}FilterSet`, 'FilterSet', entry.filters, `Query-string filters of ${entry.routes.list}.`),
      source: d.source, summary: `The ${d.name} filter set: every query parameter the list view accepts.`,
    });
    files.set(`${folder}/routes.ts`, {
      text: dataFile(`${base}Routes`, 'RouteDefinition', entry.routes, `Paths served for ${d.name}.`),
      source: d.source, summary: `The ${d.name} routes: list, detail and extra paths.`,
    });
  }
  files.set('registry.ts', { text: registryFile(entries), source: 'schema/**/*.yaml', summary: 'The registry of every model.' });
  files.set('choices.ts', { text: choicesFile(choiceSets), source: 'schema/choices/*.yaml', summary: 'The shared choice sets.' });
  const specs = tableSpecs(entries.map((e) => e.definition), new Set(choiceSets.filter((c) => c.integer).map((c) => c.name)));
  const built = buildMigrations(specs, migrations.snapshot, [...migrations.existing.keys()]);
  // Migrations already written are kept as they are: databases may have applied them.
  const kept = migrations.snapshot ? migrations.existing : new Map<string, string>();
  for (const [name, text] of [...kept, ...built.files]) {
    files.set(`migrations/${name}.ts`, { text, source: 'schema/**/*.yaml', summary: name === '0001_initial' ? 'The initial migration: one table per model, with its indexes.' : 'A migration that follows a change of schema/.' });
  }
  files.set('migrations/snapshot.json', { text: JSON.stringify(built.snapshot, null, 2) + '\n', source: 'schema/**/*.yaml', summary: 'The tables the migrations build, to compare the next schema with.' });
  for (const v of schema.versions.versions) {
    const document = buildOpenApi(entriesInVersion(entries, v.version), choiceSets, v);
    files.set(documentFile(schema.versions, v.version), { text: JSON.stringify(document, null, 2) + '\n', source: 'schema/**/*.yaml', summary: 'OpenAPI 3.1 description of the API.' });
  }
  files.set('versions.ts', { text: versionsFile(schema.versions), source: 'schema/versions.yaml', summary: 'The API versions served.' });
  files.set('menu.ts', { text: menuFile(schema.menu), source: 'schema/menu.yaml', summary: "The web interface's menu." });
  return files;
}

export type { ModelDefinition };
