/**
 * The worker thread config templates render in (runtime/core/jinja.ts keeps one, one render at a time):
 * MiniJinja (WASM) with no loader but the given files, so a template reaches no file system and no
 * network; its fuel bounds the work, the thread's heap and the parent's clock bound the rest.
 */
import { parentPort } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { PY_FILTERS } from './jinja-filters.js';
import type { RenderJob } from './jinja.js';

const require = createRequire(import.meta.url);
const { Environment } = require('minijinja-js') as typeof import('minijinja-js');

function render(job: RenderJob): string {
  const env = new Environment();
  env.enablePyCompat();
  env.fuel = job.fuel;
  const params = job.environment ?? {};
  env.trimBlocks = Boolean(params.trim_blocks);
  env.lstripBlocks = Boolean(params.lstrip_blocks);
  env.keepTrailingNewline = Boolean(params.keep_trailing_newline);
  if (params.undefined === 'StrictUndefined') env.undefinedBehavior = 'strict';
  for (const [name, fn] of Object.entries(PY_FILTERS)) env.addFilter(name, fn);
  for (const [name, source] of Object.entries(job.files ?? {})) env.addTemplate(name, source);
  return job.name ? env.renderTemplate(job.name, job.context) : env.renderStr(job.template ?? '', job.context);
}

function answer(job: RenderJob): { output?: string; error?: string } {
  try {
    const output = render(job);
    return Buffer.byteLength(output) > job.maxOutput ? { error: `The output exceeds ${job.maxOutput} bytes.` } : { output };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

parentPort!.on('message', (job: RenderJob) => parentPort!.postMessage(answer(job)));
parentPort!.postMessage({ ready: true });
