/**
 * `npm run check:imports`: fails when hand-written modules (runtime/, generator/) import each other in
 * a cycle, or when a runtime layer imports a higher one. Type-only imports count as value imports do:
 * they vanish at compile time, but a module that needs another's types depends on it all the same, so
 * every import must point down the layers described in runtime/README.md, and none may close a cycle.
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

/** Relative imports of one file, type-only ones included: they tie modules together as much for a reader. */
function imports(file) {
  const text = readFileSync(file, 'utf8');
  const pattern = /^\s*(?:import|export)\s+(?:type\s+)?[^;]*?\s*from\s*'(\.{1,2}\/[^']+)'|^\s*import\s*'(\.{1,2}\/[^']+)'/gm;
  return [...text.matchAll(pattern)].map((m) => resolve(dirname(file), (m[1] ?? m[2]).replace(/\.js$/, '.ts')));
}

const files = roots.flatMap((r) => walk(join(root, r)));
const graph = new Map(files.map((f) => [f, [...new Set(imports(f).filter((t) => files.includes(t)))]]));

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

// The layers of runtime/, lowest first (runtime/README.md): an import, type-only or not, may only point
// to the same layer or a lower one. Files directly in runtime/ are the composition root and may import anything.
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
