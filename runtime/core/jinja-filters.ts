/**
 * Jinja2 filters MiniJinja lacks or spells differently, so that templates written for NetBox (Python
 * Jinja2) print what Jinja2 prints: `round(precision, method)`, `sum(attribute=…, start=…)`,
 * `truncate`, `center`, `format` (Python's % formatting) and `tojson` (Jinja2's separators, sorted
 * keys, HTML-safe). MiniJinja hands mappings (and keyword arguments, last) to JavaScript as Maps.
 */
type Kwargs = Map<string, unknown>;

const isKwargs = (v: unknown): v is Kwargs => v instanceof Map;
/** Positional arguments and keyword arguments of a filter call. */
function split(args: unknown[]): [unknown[], Kwargs] {
  const last = args.at(-1);
  return isKwargs(last) ? [args.slice(0, -1), last] : [args, new Map()];
}
const plain = (v: unknown): unknown => (v instanceof Map ? Object.fromEntries([...v].map(([k, x]) => [k, plain(x)])) : Array.isArray(v) ? v.map(plain) : v);
const attr = (item: unknown, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o instanceof Map ? o.get(k) : (o as Record<string, unknown> | null)?.[k]), item);

function round(value: unknown, ...rest: unknown[]): number {
  const [args, kw] = split(rest);
  const precision = Number(kw.get('precision') ?? args[0] ?? 0);
  const method = String(kw.get('method') ?? args[1] ?? 'common');
  const f = 10 ** precision;
  const n = Number(value) * f;
  const r = method === 'ceil' ? Math.ceil(n) : method === 'floor' ? Math.floor(n) : Math.sign(n) * Math.round(Math.abs(n));
  return r / f;
}

const wordcount = (value: unknown) => (String(value).match(/\w+/g) ?? []).length;

function sum(value: unknown, ...rest: unknown[]): number {
  const [args, kw] = split(rest);
  const attribute = kw.get('attribute') ?? args[0];
  const start = Number(kw.get('start') ?? args[1] ?? 0);
  const items = Array.isArray(value) ? value : [];
  return items.reduce((acc: number, x) => acc + Number(attribute == null ? x : attr(x, String(attribute))), start);
}

function truncate(value: unknown, ...rest: unknown[]): string {
  const [args, kw] = split(rest);
  const s = String(value);
  const length = Number(kw.get('length') ?? args[0] ?? 255);
  const killwords = Boolean(kw.get('killwords') ?? args[1] ?? false);
  const end = String(kw.get('end') ?? args[2] ?? '...');
  const leeway = Number(kw.get('leeway') ?? args[3] ?? 5);
  if (s.length <= length + leeway) return s;
  if (killwords) return s.slice(0, length - end.length) + end;
  const cut = s.slice(0, length - end.length);
  const space = cut.lastIndexOf(' ');
  return (space >= 0 ? cut.slice(0, space) : cut) + end;
}

function center(value: unknown, width: unknown = 80): string {
  const s = String(value);
  const w = Number(width);
  if (s.length >= w) return s;
  const total = w - s.length;
  // Python's str.center puts the odd space on the left when the width is odd … and the string's length even
  const left = Math.floor(total / 2) + (total % 2 && w % 2 ? 1 : 0);
  return ' '.repeat(left) + s + ' '.repeat(total - left);
}

/** Python's `%` formatting: %s %r %d %i %f %x %o %e %% with flags, width and precision. */
function format(value: unknown, ...rest: unknown[]): string {
  const [args] = split(rest);
  let i = 0;
  return String(value).replace(/%([-+ 0#]*)(\d+)?(?:\.(\d+))?([sdifrxXoeE%])/g, (_m, flags: string, width: string | undefined, precision: string | undefined, conv: string) => {
    if (conv === '%') return '%';
    const arg = plain(args[i++]);
    let out: string;
    switch (conv) {
      case 'd': case 'i': out = String(Math.trunc(Number(arg))); break;
      case 'f': out = Number(arg).toFixed(precision === undefined ? 6 : Number(precision)); break;
      case 'e': case 'E': out = Number(arg).toExponential(precision === undefined ? 6 : Number(precision)).replace(/e([+-])(\d)$/, 'e$10$2'); if (conv === 'E') out = out.toUpperCase(); break;
      case 'x': out = Math.trunc(Number(arg)).toString(16); break;
      case 'X': out = Math.trunc(Number(arg)).toString(16).toUpperCase(); break;
      case 'o': out = Math.trunc(Number(arg)).toString(8); break;
      default: out = typeof arg === 'string' ? arg : JSON.stringify(arg); if (precision !== undefined) out = out.slice(0, Number(precision));
    }
    if (flags.includes('+') && /[difeE]/.test(conv) && Number(arg) >= 0) out = `+${out}`;
    const w = Number(width ?? 0);
    if (out.length < w) out = flags.includes('-') ? out.padEnd(w) : flags.includes('0') && conv !== 's' ? out.padStart(w, '0') : out.padStart(w);
    return out;
  });
}

/** Python's json.dumps(sort_keys=True) with `<`, `>`, `&` and `'` escaped, as Jinja2's tojson writes. */
function pyJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}: ${pyJson((v as Record<string, unknown>)[k])}`).join(', ')}}`;
  return JSON.stringify(v ?? null);
}
function tojson(value: unknown, ...rest: unknown[]): string {
  const [args, kw] = split(rest);
  const indent = kw.get('indent') ?? args[0];
  const text = indent == null ? pyJson(plain(value)) : JSON.stringify(plain(value), null, Number(indent));
  return text.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/'/g, '\\u0027');
}

export const PY_FILTERS: Record<string, (...args: any[]) => unknown> = { round, sum, truncate, center, format, tojson, wordcount };
