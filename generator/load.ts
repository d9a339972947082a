/**
 * Reads schema/ and checks it: first each file against generator/schema-format.json, then the
 * cross-file rules (relations, choice sets, field references). Every problem is collected, so one run
 * reports them all.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ModelFile, ChoiceSet as ChoiceSetFile, Versions as VersionsFile, Menu as MenuFile } from '../generated/schema-format.js';
import { checkMenu, MENU_FILE } from './menu.js';
import type { LoadedModel } from './schema-index.js';
import { checkCrossReferences } from './cross-references.js';
import { checkVersionKeys } from './check-versions.js';
import { addOwner, addSyncedData } from './model-traits.js';

export interface LoadedSchema {
  models: LoadedModel[];
  choiceSets: Map<string, ChoiceSetFile>;
  /** schema/versions.yaml: the API versions served */
  versions: VersionsFile;
  /** schema/menu.yaml: the web interface's menu */
  menu: MenuFile;
}

/** The file of API versions, beside the model folders. */
export const VERSIONS_FILE = 'versions.yaml';

export class SchemaErrors extends Error {
  constructor(public readonly problems: string[]) {
    super(`schema/ has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  }
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return yamlFiles(path);
      return entry.name.endsWith('.yaml') && entry.name !== VERSIONS_FILE && entry.name !== MENU_FILE ? [path] : [];
    })
    .sort();
}

export function loadSchema(root: string, formatFile: string, hooksDir: string): LoadedSchema {
  const problems: string[] = [];
  const format = JSON.parse(readFileSync(formatFile, 'utf8'));
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: false });
  ajv.addSchema(format);
  const validateModel = ajv.compile({ $ref: `${format.$id}` });
  const validateChoices = ajv.compile({ $ref: `${format.$id}#/$defs/choiceSet` });
  const validateVersions = ajv.compile({ $ref: `${format.$id}#/$defs/versions` });
  const validateMenu = ajv.compile({ $ref: `${format.$id}#/$defs/menu` });
  const versions = parse(readFileSync(join(root, VERSIONS_FILE), 'utf8')) as VersionsFile;
  if (!validateVersions(versions)) for (const e of validateVersions.errors ?? []) problems.push(`schema/${VERSIONS_FILE}: ${e.instancePath || '(top)'}: ${e.message}`);
  else if (!versions.versions.some((v) => v.version === versions.default)) problems.push(`schema/${VERSIONS_FILE}: default: '${versions.default}' is not one of the versions`);
  const known = new Set(versions.versions?.map((v) => v.version) ?? []);

  const models: LoadedModel[] = [];
  const choiceSets = new Map<string, ChoiceSetFile>();
  for (const path of yamlFiles(root)) {
    const file = relative(join(root, '..'), path);
    let data: unknown;
    try {
      data = parse(readFileSync(path, 'utf8'));
    } catch (error) {
      problems.push(`${file}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    const isChoices = file.includes('/choices/');
    const validate = isChoices ? validateChoices : validateModel;
    if (!validate(data)) {
      for (const e of validate.errors ?? []) {
        const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top)';
        const extra = e.params && 'additionalProperty' in e.params ? ` '${e.params.additionalProperty}'` : '';
        const allowed = e.params && 'allowedValues' in e.params ? ` (one of ${(e.params.allowedValues as string[]).join(', ')})` : '';
        problems.push(`${file}: ${where}: ${e.message}${extra}${allowed}`);
      }
      continue;
    }
    if (isChoices) {
      const set = data as ChoiceSetFile;
      if (choiceSets.has(set.name)) problems.push(`${file}: name: choice set '${set.name}' is defined twice`);
      choiceSets.set(set.name, set);
    } else {
      models.push({ file, spec: data as ModelFile });
    }
  }

  for (const m of models) {
    if (m.spec.synced_data) addSyncedData(m.spec);
    if (m.spec.owner) addOwner(m.spec);
  }
  checkCrossReferences(models, choiceSets, hooksDir, problems);
  checkVersionKeys(models, known, problems);
  const menu = parse(readFileSync(join(root, MENU_FILE), 'utf8')) as MenuFile;
  if (!validateMenu(menu)) for (const e of validateMenu.errors ?? []) problems.push(`schema/${MENU_FILE}: ${e.instancePath || '(top)'}: ${e.message}`);
  else checkMenu(menu, new Map(models.map((m) => [m.spec.model, m.spec.app])), problems);
  if (problems.length) throw new SchemaErrors(problems);
  return { models, choiceSets, versions, menu };
}
