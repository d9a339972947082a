/**
 * Display templates ("{name} ({asset_tag})") compiled once per model: literal text and reads of
 * columns, following relations through the loaded rows; the first template complete for a row wins.
 */
import { choiceSet, hooksOf, model, type Row } from './registry.js';
import type { ModelEntry } from '../core/types.js';
import { splitPath } from '../core/paths.js';
import type { RenderState } from './render-state.js';

/** A compiled display path: read a column, following fks through the loaded rows. */
type Read = (row: Row, state: RenderState) => unknown;

export function isBlank(v: unknown): boolean {
  return v === null || v === undefined || v === '';
}

function compilePath(entry: ModelEntry, parts: string[]): Read {
  const [head, ...rest] = parts;
  if (head === 'id') return (row) => row.id;
  const f = entry.definition.fields[head];
  if (!f) return (row) => row[head];
  if (!rest.length) {
    if (f.type === 'generic_fk') {
      // a generic relation named alone shows its target's display
      const types = f.types!;
      return (row, state) => {
        const targetName = types[row[`${head}_type`]];
        const related = targetName ? state.row(targetName, row[`${head}_id`]) : undefined;
        return related ? state.display(model(targetName), related) : null;
      };
    }
    if (f.type === 'fk') {
      // a relation named alone shows its target's display, as Python's str() of it does
      const target = f.to!;
      const column = f.columns[0];
      return (row, state) => {
        const related = state.row(target, row[column]);
        return related ? state.display(model(target), related) : null;
      };
    }
    const column = f.type === 'token_key' ? f.columns[1] : f.columns[0];
    if (!column) return () => null;
    return (row) => row[column];
  }
  if (f.type === 'choice' && rest.length === 1 && rest[0] === 'label') {
    // `{priority.label}`: the choice's label, as NetBox's get_<field>_display()
    const labels = new Map(choiceSet(f.choices!).choices.map((c) => [String(c.value), c.label]));
    const column = f.columns[0];
    return (row) => (isBlank(row[column]) ? null : labels.get(String(row[column])) ?? row[column]);
  }
  const target = f.to!;
  const column = f.columns[0];
  const next = compilePath(model(target), rest);
  return (row, state) => {
    const related = state.row(target, row[column]);
    return related ? next(related, state) : null;
  };
}

/** Display templates ("{name} ({asset_tag})") as literal parts and compiled reads; the first complete one wins. */
export function compileDisplay(entry: ModelEntry, display: string[] = entry.definition.display): (row: Row, state: RenderState) => string {
  // A hook computes the display when no template can say it (a range's shortened end).
  const own = hooksOf(entry).find((h) => h.display)?.display;
  if (own) return (row) => own(row);
  const templates = display.map((template) => {
    const parts: (string | Read)[] = [];
    let last = 0;
    for (const m of template.matchAll(/\{([^}]+)\}/g)) {
      if (m.index! > last) parts.push(template.slice(last, m.index));
      parts.push(compilePath(entry, splitPath(m[1])));
      last = m.index! + m[0].length;
    }
    if (last < template.length) parts.push(template.slice(last));
    return parts;
  });
  return (row, state) => {
    outer: for (const parts of templates) {
      let text = '';
      for (const part of parts) {
        if (typeof part === 'string') { text += part; continue; }
        const value = part(row, state);
        if (isBlank(value)) continue outer;
        text += String(value);
      }
      return text;
    }
    return String(row.id);
  };
}
