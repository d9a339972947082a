/**
 * The runtime's view of the generated registry: models by name, by content type and by path, plus
 * the hooks each model names. Hooks are the only per-model code, and the schema says which apply.
 */
import type { Knex } from 'knex';
import { models as generatedModels } from '../../generated/registry.js';
import { choiceSets } from '../../generated/choices.js';
import type { ChoiceSet, FieldDefinition, ModelEntry, Row } from '../core/types.js';
import type { ErrorCollector } from '../core/errors.js';
import type { User } from '../core/user.js';
import type { Config } from '../core/config.js';
import type { ChangeContext, RuleSettings } from './write-context.js';

export type { Row } from '../core/types.js';

export type Action = 'view' | 'add' | 'change' | 'delete';

export interface HookContext {
  db: Knex;
  /** the model the hook runs for (a hook may serve several models: the cabled components) */
  entry?: ModelEntry;
  /**
   * the request's change context, on the hooks that run while objects are written or deleted: writes
   * a hook makes on other models go through data/side-writes.ts with it, so they are change-logged
   */
  request?: ChangeContext | null;
}

/** One element of a write while it is validated: the columns to store, and what the client sent. */
export interface WriteItem {
  input: Record<string, unknown>;
  /** column → value about to be written */
  values: Row;
  /** the stored row, on update */
  existing: Row | null;
  /** the object's id: known on update, set once a create is written */
  id: number | null;
  errors: ErrorCollector;
  /** values to show once in the response (e.g. a new token key), by field */
  reveal: Record<string, unknown>;
  /** many-to-many fields given in the request: field → target ids (an empty list clears) */
  m2m?: Record<string, number[]>;
  /**
   * the fields the body gave under a name of the write's API version, stored ones and writable
   * computed ones (a hook tells 3.7's min_vid from 4.6's vid_ranges by it); absent: none
   */
  given?: Set<string>;
  /** fields whose value was stored through the version's conversion: field → conversion name */
  converted?: Record<string, string>;
}

/**
 * What a computed field's hook gets: `refer(model, id)` stands for the nested form of another
 * object (rendered like any nested relation, loaded with the page's other rows); `extra` adds keys
 * beside it (a parent device's `device_bay`).
 */
export interface ComputedContext extends HookContext {
  refer(model: string, id: unknown, extra?: Record<string, unknown>): unknown;
  /** where the answer's API URLs start (scheme, host, version prefix) */
  baseUrl?: string;
  /** the API version the answer is in */
  version?: string;
}

export interface ModelHooks {
  /** the object's display text, when no template of the schema can say it (a range's shortened end) */
  display?: (row: Row) => string;
  /**
   * adds what `display` reads beyond the row's own columns to every loaded row of the model, in one
   * query for all of them (an FHRP group's first address)
   */
  displayData?: (rows: Row[], ctx: HookContext) => Promise<void>;
  /** computed fields, filled for a page of rows at once */
  computed?: Record<string, (rows: Row[], ctx: ComputedContext) => Promise<Map<number, unknown>>>;
  /** the computed fields read no byte form of an IP field (`<f>_host`...), so a list page may leave those out */
  computedReadsIpBytes?: false;
  /** filters the schema declares as `method:` */
  filters?: Record<string, (qb: Knex.QueryBuilder, values: string[], ctx: HookContext & { table: string; lookup: string; user?: User | null }) => void>;
  /** last checks and derived values of one element before it is written */
  prepare?: (item: WriteItem, ctx: HookContext & { user: User | null; rules?: RuleSettings }) => Promise<void> | void;
  /** checks that compare the elements of a request with stored rows, for all elements at once */
  prepareMany?: (items: WriteItem[], ctx: HookContext & { user: User | null; rules?: RuleSettings }) => Promise<void>;
  /**
   * after the rows of a create or update are written, inside the transaction (items: the request's
   * elements, ids set); resolves to false when it wrote nothing, so the rows as written stand and
   * are not read again
   */
  afterWrite?: (rows: Row[], ctx: HookContext & { items: WriteItem[] }) => Promise<boolean | void>;
  /**
   * before objects of this model are deleted (after their change records are taken), inside the
   * transaction; `closure` is everything the delete removes, by model, cascades included
   */
  beforeDelete?: (ids: number[], ctx: HookContext & { closure: Map<string, Set<number>> }) => Promise<void>;
  /** narrows what a user may see and change */
  scope?: (qb: Knex.QueryBuilder, user: User | null, table: string) => void;
  /** whether a user may perform an action at all on this model (beyond the generic token rules) */
  authorize?: (action: Action, user: User, config: Config) => boolean;
  /** every authenticated user may read this model without an object permission (content types) */
  selfService?: boolean;
  /**
   * narrows a query to the user's own objects (their tokens): a user views, changes and deletes
   * their own, and creates them for themselves, without a permission; others' follow object
   * permissions, and listing needs a view permission
   */
  owner?: (qb: Knex.QueryBuilder, userId: number, table: string) => void;
  /**
   * rebuilds what the model's writes keep beside its rows (stored cable paths), once an import has
   * brought the rows in without going through writes; inside the import's transaction
   */
  afterImport?: (db: Knex) => Promise<void>;
  /** brings rows an upgrade left incomplete up to date, once per process start, after migrations */
  startup?: (ctx: HookContext) => Promise<void>;
  /** extra detail routes (`actions:` in the schema), by the hook name the schema gives */
  actions?: Record<string, (ctx: ActionContext) => Promise<ActionResult>>;
  /**
   * background jobs about objects of this model (data/jobs.ts), by the job's name: run by the one
   * process that claims the job; the result becomes the job's `data`, a thrown error its `error`
   */
  jobs?: Record<string, (ctx: JobContext) => Promise<unknown>>;
  /** hides what the change log must not keep (a password among a data source's parameters) in a snapshot */
  snapshot?: (snap: Record<string, unknown>) => void;
}

/** A claimed job: the object it is about (null when that is gone), the job's row, its time limit. */
export interface JobContext extends HookContext {
  entry: ModelEntry;
  row: Row | null;
  job: Row;
  timeoutMs: number;
}

/** An extra detail route's request: the object (visible to the user; empty for an app route) and what was sent. */
export interface ActionContext extends HookContext {
  entry: ModelEntry;
  row: Row;
  user: User | null;
  method: string;
  body: unknown;
  baseUrl: string;
  /** the API version the answer is in (its nested forms) */
  version?: string;
  requestId: string;
  query: URLSearchParams;
  /** the request's Accept header (an action may answer text/plain when asked to) */
  accept?: string;
  /** the field the route serves (an image field's file) */
  field?: string;
  /** the request's limit/offset as a list view reads them (PAGINATE_COUNT, MAX_PAGE_SIZE), for actions that answer a page */
  page: { limit: number | null; offset: number; links(base: string, params: URLSearchParams, count: number): { next: string | null; previous: string | null } };
  /**
   * Creates objects of a model through the generic create path (add permission and constraints,
   * validation, change capture, the 201 response) in one transaction; `build` runs inside it first
   * and returns the elements to create (or throws, e.g. a 409 when nothing is free).
   */
  create(model: string, build: (trx: Knex) => Promise<{ items: unknown[]; many: boolean }>): Promise<ActionResult>;
}

export interface ActionResult {
  status: number;
  body: unknown;
  /** the response's content type when it is not JSON (an SVG drawing) */
  type?: string;
}

export const models: Record<string, ModelEntry> = generatedModels;
export const modelList: ModelEntry[] = Object.values(models);

export const byContentType = new Map(modelList.map((m) => [m.definition.contentType, m]));

export function model(name: string): ModelEntry {
  const entry = models[name];
  if (!entry) throw new Error(`unknown model ${name}`);
  return entry;
}

export function choiceSet(name: string): ChoiceSet {
  return choiceSets[name];
}

/**
 * Hooks by the name the schema gives them. The composition root (runtime/compose.ts) registers
 * runtime/hooks/ here, so this ground-floor module never imports the layers above it.
 */
const hookModules: Record<string, ModelHooks> = {};

export function registerHooks(hooks: Record<string, ModelHooks>): void {
  Object.assign(hookModules, hooks);
}

export function hooksOf(entry: ModelEntry): ModelHooks[] {
  return entry.definition.hooks.map((name) => {
    const hook = hookModules[name];
    if (!hook) throw new Error(`${entry.definition.source}: hook '${name}' is not registered (runtime/hooks/index.ts, registered by runtime/compose.ts)`);
    return hook;
  });
}

/** The field a value is stored or shown through (aliases resolve to their target). */
export function storedField(entry: ModelEntry, field: FieldDefinition): FieldDefinition {
  return field.type === 'alias' ? entry.definition.fields[field.of!] : field;
}

/** Checked at start-up: every computed hook and filter method the schema names exists. */
export function checkHooks(): void {
  for (const entry of modelList) {
    const hooks = hooksOf(entry);
    for (const f of Object.values(entry.definition.fields)) {
      if (f.source?.startsWith('hook:') && !hooks.some((h) => h.computed?.[f.source!.slice(5)])) {
        throw new Error(`${entry.definition.source}: no hook of ${entry.definition.name} computes '${f.source}'`);
      }
      for (const [key, x] of Object.entries(f.extra ?? {})) {
        if (!hooks.some((h) => h.computed?.[x.hook])) throw new Error(`${entry.definition.source}: ${f.name}.extra.${key} names hook '${x.hook}', which no hook of ${entry.definition.name} computes`);
      }
    }
    for (const [name, filter] of Object.entries(entry.filters)) {
      if (filter.kind === 'method' && !hooks.some((h) => h.filters?.[filter.method])) {
        throw new Error(`${entry.definition.source}: filter '${name}' names method '${filter.method}', which no hook of ${entry.definition.name} provides`);
      }
    }
    for (const extra of entry.routes.extra) {
      if (!hooks.some((h) => h.actions?.[extra.hook])) throw new Error(`${entry.definition.source}: route ${extra.path} names action '${extra.hook}', which no hook of ${entry.definition.name} provides`);
    }
  }
}
