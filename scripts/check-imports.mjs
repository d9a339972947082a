/**
 * `npm run check:imports`: fails when hand-written modules (runtime/, generator/) import each other in
 * a cycle through value imports, or when a runtime layer imports a higher one. Type-only imports are erased at compile time, so they may point
 * anywhere; a value import must point down the layers described in runtime/README.md.
 *
 * A small script rather than madge or dependency-cruiser: it needs only the relative import lines of
 * our own files, which a regular expression reads reliably, and it adds no dependency tree to CI.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const roots = ['runtime', 'generator'];

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Relative value imports of one file: skips `import type` and imports whose names are all `type X`. */
function valueImports(file) {
  const text = readFileSync(file, 'utf8');
  const found = [];
  const pattern = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*'(\.{1,2}\/[^']+)'|^\s*import\s*'(\.{1,2}\/[^']+)'/gm;
  for (const m of text.matchAll(pattern)) {
    const spec = m[4] ?? m[5];
    if (m[2]) continue;
    const names = m[3] ?? '';
    const braces = names.match(/^\{([\s\S]*)\}$/);
    if (braces && braces[1].split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '))) continue;
    found.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
  }
  return found;
}

const files = roots.flatMap((r) => walk(join(root, r)));
const graph = new Map(files.map((f) => [f, valueImports(f).filter((t) => files.includes(t))]));

// Tarjan's strongly connected components: every component of more than one file is a cycle.
let index = 0;
const stack = [];
const meta = new Map();
const cycles = [];
function visit(v) {
  meta.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of graph.get(v)) {
    if (!meta.has(w)) {
      visit(w);
      meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
    } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
  }
  if (meta.get(v).low === meta.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      meta.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v).includes(v)) cycles.push(component);
  }
}
for (const f of files) if (!meta.has(f)) visit(f);

// The layers of runtime/, lowest first (runtime/README.md): a value import may only point to the same
// layer or a lower one. Files directly in runtime/ are the composition root and may import anything.
const LAYERS = ['core', 'data', 'auth', 'webhooks', 'hooks', 'http', 'ui'];
const layerOf = (file) => {
  const parts = relative(join(root, 'runtime'), file).split('/');
  return parts[0] === '..' || parts.length === 1 ? null : LAYERS.indexOf(parts[0]);
};
const upward = [];
for (const [file, targets] of graph) {
  const from = layerOf(file);
  if (from === null || from < 0) continue;
  for (const t of targets) {
    const to = layerOf(t);
    if (to === null || to > from) upward.push(`${relative(root, file)} imports ${relative(root, t)}, a higher layer`);
  }
}

if (upward.length) {
  console.log(`imports against the layers of runtime/README.md: ${upward.length}`);
  for (const line of upward) console.log(`- ${line}`);
}
if (cycles.length) {
  console.log(`import cycles among hand-written files: ${cycles.length}`);
  for (const c of cycles) {
    const names = c.map((f) => relative(root, f)).sort();
    console.log(`- ${names.join(' → ')}`);
    for (const f of c) {
      const inside = graph.get(f).filter((t) => c.includes(t)).map((t) => relative(root, t));
      console.log(`    ${relative(root, f)} imports ${inside.join(', ')}`);
    }
  }
}
if (cycles.length || upward.length) process.exit(1);
console.log(`no import cycles and no upward imports among ${files.length} hand-written files`);
