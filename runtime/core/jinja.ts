/**
 * Config templates render here: Jinja2 syntax through MiniJinja (minijinja-js, chosen by the
 * fidelity suite in test/config-render.test.ts), in a worker thread, so that no template can hold
 * up the process. One worker per process renders one template at a time (a queue in front); a
 * render that outlives its clock ends the worker, and the next render starts a new one. Limits:
 * MiniJinja's fuel (instructions), the wall clock, the worker's heap and the output's size. Every
 * failure (syntax, an unknown filter, a limit) is an ApiError 400 that says what happened.
 */
import { Worker } from 'node:worker_threads';
import PQueue from 'p-queue';
import { errors } from './errors.js';

export interface RenderJob {
  /** the template text, or `name`: one of `files` to render */
  template?: string;
  name?: string;
  /** templates `{% include %}`, `{% import %}` and `{% extends %}` may name */
  files?: Record<string, string>;
  context: Record<string, unknown>;
  /** the template's environment_params (trim_blocks, lstrip_blocks, keep_trailing_newline, undefined) */
  environment?: Record<string, unknown>;
  fuel: number;
  maxOutput: number;
}

export const RENDER_LIMITS = { timeoutMs: 5000, fuel: 10_000_000, maxOutput: 10 * 1024 * 1024, heapMb: 256 };

const workerFile = new URL(import.meta.url.endsWith('.ts') ? './jinja-worker.ts' : './jinja-worker.js', import.meta.url);
const queue = new PQueue({ concurrency: 1 });
let current: Promise<Worker> | null = null;

/** The running worker, started (and waited for until it has loaded MiniJinja) when there is none. */
function worker(heapMb: number): Promise<Worker> {
  return (current ??= new Promise<Worker>((resolve, reject) => {
    const w = new Worker(workerFile, { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    w.unref();
    w.once('message', () => resolve(w));
    w.once('error', (e) => { current = null; reject(e); });
    w.once('exit', () => { current = null; });
  }));
}

type Reply = { output?: string; error?: string };

async function run(data: RenderJob, limits: typeof RENDER_LIMITS): Promise<Reply> {
  const w = await worker(limits.heapMb);
  return new Promise<Reply>((resolve) => {
    const done = (reply: Reply) => {
      clearTimeout(timer);
      w.off('message', onMessage).off('error', onError).off('exit', onExit);
      resolve(reply);
    };
    const onMessage = (m: Reply) => done(m);
    const onError = (e: Error) => done({ error: /memory/i.test(e.message) ? 'it needed more memory than a template may use' : e.message });
    const onExit = () => done({ error: 'the renderer stopped' });
    const timer = setTimeout(() => {
      current = null;
      void w.terminate();
      done({ error: `it ran longer than ${limits.timeoutMs / 1000} s` });
    }, limits.timeoutMs);
    w.on('message', onMessage).on('error', onError).on('exit', onExit);
    try {
      w.postMessage(data);
    } catch (e) {
      done({ error: `the context cannot be passed to the template (${(e as Error).message})` });
    }
  });
}

export async function renderJinja(job: Omit<RenderJob, 'fuel' | 'maxOutput'>, limits = RENDER_LIMITS): Promise<string> {
  const reply = await queue.add(() => run({ ...job, fuel: limits.fuel, maxOutput: limits.maxOutput }, limits));
  if (reply?.error !== undefined || reply?.output === undefined) throw errors.badRequest(`An error occurred while rendering the template: ${reply?.error ?? 'no output'}`);
  return reply.output;
}
