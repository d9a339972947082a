/**
 * What an import accepts beyond the API's own body, so that files written for NetBox (the
 * device-type library's YAML) paste in: a relation given by name or by its lookup (`manufacturer:
 * Juniper`, `rear_port: Rear 1`), and a row's own lists of the rows a tab of its page shows
 * (`interfaces:`, `front-ports:`), created after it and pointing at it. All or nothing: when a
 * listed row fails, the rows already created are deleted again. Each error names its line.
 */
import type { Context } from 'koa';
import { LineCounter, parseAllDocuments } from 'yaml';
import { modelList } from '../data/registry.js';
import type { ModelEntry } from '../core/types.js';
import { callView, errorText } from './api-call.js';
import type { ApiViews } from './api-views.js';

export interface ImportError { row: number; line: number | null; text: string }

function modelNamed(name: string): ModelEntry | undefined {
  return modelList.find((m) => m.definition.name === name);
}

/** The line of a value in the pasted YAML (rows, then path inside the row), or null. */
export function lineFinder(text: string): (row: number, path: (string | number)[]) => number | null {
  const counter = new LineCounter();
  let docs: ReturnType<typeof parseAllDocuments>;
  try {
    docs = parseAllDocuments(text, { lineCounter: counter });
  } catch {
    return () => null;
  }
  const list = Array.isArray(docs) ? docs : [];
  return (row, path) => {
    const doc = list.length > 1 ? list[row] : list[0];
    if (!doc) return null;
    const full = list.length > 1 || !Array.isArray(doc.toJS()) ? path : [row, ...path];
    for (let n = full.length; n >= 0; n--) {
      const node = doc.getIn(full.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node?.range) return counter.linePos(node.range[0]).line;
    }
    return null;
  };
}

/** A relation given as text (not an id): the object whose lookup field, or name, it is; scoped by `within`. */
async function resolveRelations(ctx: Context, api: ApiViews, entry: ModelEntry, row: Record<string, unknown>, within: Record<string, string>): Promise<void> {
  for (const f of Object.values(entry.definition.fields)) {
    const value = row[f.name];
    if (f.type !== 'fk' || typeof value !== 'string' || /^\d+$/.test(value)) continue;
    const target = modelNamed(f.to!);
    if (!target) continue;
    const keys = [...new Set([target.definition.lookup, 'name', 'slug'])].filter((k) => target.filters[k]);
    for (const key of keys) {
      const query = new URLSearchParams({ [key]: value, brief: '1', limit: '2', ...Object.fromEntries(Object.entries(within).filter(([k]) => target.filters[k])) });
      const result = await callView(ctx, api.get(target)!.list, { query });
      if (result.ok && result.body.count === 1) {
        row[f.name] = result.body.results[0].id;
        break;
      }
    }
  }
}

/**
 * Creates the rows (and their listed rows) through the API. Returns the created top-level ids, or the
 * errors (nothing then stays created).
 */
export async function importRows(ctx: Context, api: ApiViews, entry: ModelEntry, rows: Record<string, unknown>[], lineOf: (row: number, path: (string | number)[]) => number | null): Promise<{ ids: number[] } | { errors: ImportError[] }> {
  const tabs = (entry.definition.ui?.tabs ?? []).filter((t) => t.add);
  const children = rows.map((row) => {
    const lists: { tab: (typeof tabs)[number]; items: Record<string, unknown>[] }[] = [];
    for (const tab of tabs) {
      const key = [tab.path, tab.path.replace(/-/g, '_')].find((k) => Array.isArray(row[k]));
      if (!key) continue;
      lists.push({ tab, items: row[key] as Record<string, unknown>[] });
      delete row[key];
    }
    return lists;
  });
  for (const row of rows) await resolveRelations(ctx, api, entry, row, {});
  const v = api.get(entry)!;
  const created = await callView(ctx, v.create, { body: rows });
  if (!created.ok) {
    if (!Array.isArray(created.error)) return { errors: [{ row: 0, line: null, text: errorText(created.error) }] };
    const list = created.error as Record<string, unknown>[];
    return { errors: list.flatMap((e, i) => (Object.keys(e).length ? [{ row: i + 1, line: lineOf(i, [Object.keys(e)[0]]), text: errorText(e) }] : [])) };
  }
  const ids = (created.body as { id: number }[]).map((r) => r.id);
  const errors: ImportError[] = [];
  for (let i = 0; i < rows.length && !errors.length; i++) {
    for (const { tab, items } of children[i]) {
      const other = modelNamed(tab.model);
      if (!other || !items.length) continue;
      const body = items.map((item) => ({ ...item, [tab.add!]: ids[i] }));
      for (const item of body) await resolveRelations(ctx, api, other, item, { [`${tab.add}_id`]: String(ids[i]) });
      const result = await callView(ctx, api.get(other)!.create, { body });
      if (result.ok) continue;
      const list: object[] = Array.isArray(result.error) ? result.error : [result.error];
      list.forEach((e, j) => {
        if (!Object.keys(e).length) return;
        const key = Object.keys(items[0] ?? {}).find((k) => k in e) ?? Object.keys(e)[0];
        errors.push({ row: i + 1, line: lineOf(i, [tab.path, j, key]) ?? lineOf(i, [tab.path.replace(/-/g, '_'), j, key]), text: `${tab.path} ${j + 1}: ${errorText(e)}` });
      });
      break;
    }
  }
  if (errors.length) {
    await callView(ctx, v.remove, { body: ids.map((id) => ({ id })) });
    return { errors };
  }
  return { ids };
}
