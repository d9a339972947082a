/**
 * Webhook templates (payload URL, additional headers, body) in the spec's Jinja-style syntax,
 * rendered by liquidjs in a sandbox: no JavaScript is evaluated, only own properties of the context
 * are reachable, `include`/`render` find no files (an empty in-memory template store), and render
 * time, memory and template size are bounded.
 *
 * Jinja spellings are accepted on top of Liquid's: `{{ data['field'] }}` works natively; filters
 * carry Jinja names (upper, lower, title, capitalize, length, default, join, replace, tojson, first,
 * last, trim) and may be called Jinja-style, `join(", ")`, besides Liquid's `join: ", "`; `elif`,
 * `loop.index`, True, False and None are translated.
 */
import { Liquid, type Template } from 'liquidjs';

export class TemplateError extends Error {}

const engine = new Liquid({
  strictFilters: true,
  strictVariables: false,
  ownPropertyOnly: true,
  templates: {},
  cache: false,
  parseLimit: 1_000_000,
  renderLimit: 2_000,
  memoryLimit: 10_000_000,
});

const text = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const sized = (v: unknown): number => (Array.isArray(v) || typeof v === 'string' ? v.length : v && typeof v === 'object' ? Object.keys(v).length : 0);

const filters: Record<string, (value: unknown, ...args: unknown[]) => unknown> = {
  upper: (v) => text(v).toUpperCase(),
  lower: (v) => text(v).toLowerCase(),
  title: (v) => text(v).toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_, sep: string, c: string) => sep + c.toUpperCase()),
  capitalize: (v) => { const s = text(v); return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase(); },
  length: (v) => sized(v),
  count: (v) => sized(v),
  default: (v, fallback = '', boolean = false) => (v === undefined || v === null || (boolean && !v) ? fallback : v),
  join: (v, sep = '') => (Array.isArray(v) ? v.map(text).join(text(sep)) : text(v)),
  replace: (v, from, to = '') => text(v).split(text(from)).join(text(to)),
  tojson: (v) => JSON.stringify(v ?? null),
  first: (v) => (Array.isArray(v) || typeof v === 'string' ? v[0] : undefined),
  last: (v) => (Array.isArray(v) || typeof v === 'string' ? v[v.length - 1] : undefined),
  trim: (v) => text(v).trim(),
};
for (const [name, fn] of Object.entries(filters)) engine.registerFilter(name, fn);

/** Jinja spellings → Liquid, inside `{{ }}` and `{% %}` only, never inside string literals. */
export function jinjaToLiquid(source: string): string {
  return source.replace(/(\{\{-?|\{%-?)([\s\S]*?)(-?\}\}|-?%\})/g, (_, open: string, inner: string, close: string) => {
    const strings: string[] = [];
    let code = inner.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, (s) => `\u0000${strings.push(s) - 1}\u0000`);
    code = code
      .replace(/\|\s*([A-Za-z_]\w*)\s*\(([^()]*)\)/g, (_m, name: string, args: string) => (args.trim() ? `| ${name}: ${args.trim()}` : `| ${name}`))
      .replace(/^(\s*)elif\b/, '$1elsif')
      .replace(/(?<![\w.])True\b/g, 'true')
      .replace(/(?<![\w.])False\b/g, 'false')
      .replace(/(?<![\w.])None\b/g, 'nil')
      .replace(/(?<![\w.])loop\./g, 'forloop.');
    return open + code.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => strings[Number(i)]) + close;
  });
}

const parsed = new Map<string, Template[]>();

function parse(source: string): Template[] {
  let templates = parsed.get(source);
  if (!templates) {
    templates = engine.parse(jinjaToLiquid(source));
    if (parsed.size >= 500) parsed.delete(parsed.keys().next().value!);
    parsed.set(source, templates);
  }
  return templates;
}

/** The parse error of a template, or null: checked when a webhook is saved. */
export function templateError(source: string): string | null {
  try {
    parse(source);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Renders a template with the webhook context; any failure is a TemplateError naming `what`. */
export async function render(source: string, context: Record<string, unknown>, what: string): Promise<string> {
  if (!source.includes('{')) return source;
  try {
    return String(await engine.render(parse(source), context));
  } catch (error) {
    throw new TemplateError(`${what}: ${(error as Error).message}`);
  }
}
