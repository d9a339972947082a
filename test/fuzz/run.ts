/**
 * The fuzzer: property-based hostile requests against every endpoint of the registry (lists, details,
 * bulk writes, the hooks' extra routes), with junk headers, and the assertions every answer must meet:
 * never a 5xx, never a hang, never a reset, JSON errors, and for a refused write an unchanged table
 * and change log. Used by test/fuzz.test.ts (CI, fixed seed) and `npm run fuzz` (longer, new seed).
 */
import fc from 'fast-check';
import { request } from 'node:http';
import { modelList } from '../../runtime/data/registry.js';
import type { ModelEntry } from '../../runtime/core/types.js';
import { ADMIN_TOKEN, asServed, listPath, type TestApp } from '../helpers.js';
import { createObject, inputFor, seedRow } from '../factory.js';
import { bodyFor, junkHeaders, nastyText, queryFor } from './arbitraries.js';

const TIMEOUT_MS = 20_000;

export interface Answer {
  status: number;
  text: string;
  /** the response's Content-Type */
  type: string;
  /** the request asked for HTML (Accept: text/html): the browsable API may answer with a page */
  askedHtml: boolean;
}

/** One request through node:http (any Host header, any body); fails on a reset or a hang. */
export function send(app: TestApp, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const u = new URL(app.url);
  return new Promise((resolve, reject) => {
    let answered = false;
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = request({ host: u.hostname, port: u.port, method, path, setHost: false, headers: { host: u.host, ...length, ...headers } }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        clearTimeout(timer);
        const accept = Object.entries(headers).find(([k]) => k.toLowerCase() === 'accept')?.[1] ?? '';
        resolve({ status: res.statusCode ?? 0, text, type: String(res.headers['content-type'] ?? ''), askedHtml: /text\/html/.test(accept) });
      });
      res.on('error', (error) => reject(new Error(`the answer broke off: ${error.message}`)));
    });
    const timer = setTimeout(() => { req.destroy(); reject(new Error(`no answer in ${TIMEOUT_MS} ms (a hang)`)); }, TIMEOUT_MS);
    // After the answer, a failed write of the rest of the body is the server closing, as it should.
    req.on('error', (error) => { if (!answered) { clearTimeout(timer); reject(new Error(`connection error before an answer (a reset?): ${error.message}`)); } });
    req.end(body);
  });
}

/** Every answer: no 5xx, and JSON (or nothing) when it is an error, unless a browser's Accept asked for the HTML page. */
/** How runtime/core/errors.ts words a value the database refused (fromDatabaseError). */
const DATABASE_REFUSED = 'A value in the request cannot be stored or compared';

function checkAnswer(answer: Answer, what: string): void {
  if (answer.status >= 500 || answer.status === 0) throw new Error(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
  if (answer.type.startsWith('text/html')) {
    if (!answer.askedHtml) throw new Error(`${what}: HTTP ${answer.status} answered with HTML to a request that did not ask for it`);
    return;
  }
  if (answer.status >= 400 && answer.text) {
    let body: unknown;
    try { body = JSON.parse(answer.text); } catch { throw new Error(`${what}: HTTP ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 200)}`); }
    if (body === null || typeof body !== 'object') throw new Error(`${what}: HTTP ${answer.status} error body is not an object or list: ${answer.text.slice(0, 200)}`);
    // The database refused a value that validation let through: caught by the net in
    // runtime/core/errors.ts, but the answer names no field. Validation should have.
    if (answer.text.includes(DATABASE_REFUSED)) throw new Error(`${what}: HTTP ${answer.status} from the database's refusal, not from validation: ${answer.text.slice(0, 200)}`);
  }
}

interface Fixtures {
  /** a stored object per model (its detail route exists) */
  ids: Map<string, number>;
  /** valid create data per writable model */
  inputs: Map<string, Record<string, unknown>>;
  customFields: string[];
}

/** One object of every model, valid create data for every writable one, and custom fields of each kind. */
export async function prepare(app: TestApp): Promise<Fixtures> {
  const fixtures: Fixtures = { ids: new Map(), inputs: new Map(), customFields: [] };
  const withCustomFields = modelList.filter((m) => m.definition.customFields).map((m) => m.definition.contentType);
  for (const [name, type, extra] of [['fz_int', 'integer', {}], ['fz_text', 'text', {}], ['fz_loose', 'text', { filter_logic: 'loose' }], ['fz_bool', 'boolean', {}], ['fz_date', 'date', {}], ['fz_dec', 'decimal', {}], ['fz_json', 'json', {}]] as const) {
    const reply = await app.api('POST', '/api/extras/custom-fields/', { name, type, content_types: withCustomFields, ...extra });
    if (reply.status !== 201) throw new Error(`custom field ${name}: ${reply.status} ${reply.text.slice(0, 300)}`);
    fixtures.customFields.push(name);
  }
  for (const entry of modelList) {
    const d = entry.definition;
    if (d.readOnly) fixtures.ids.set(d.name, await seedRow(app, entry));
    else {
      fixtures.ids.set(d.name, (await createObject(app, entry)).id);
      fixtures.inputs.set(d.name, await inputFor(app, asServed(entry)));
    }
  }
  return fixtures;
}

/** What a refused write must leave alone: the model's rows and the change log. */
async function snapshot(app: TestApp, entry: ModelEntry): Promise<string> {
  const db = app.running.db;
  const rows = await db(entry.definition.table).select('*').orderBy('id');
  // A token's last_used is written by authentication itself, whatever the request.
  for (const row of rows) delete row.last_used;
  const changes = await db('extras_objectchange').count('* as n').first();
  return JSON.stringify([rows, changes?.n]);
}

const writable = modelList.filter((m) => !m.definition.readOnly);
const auth = { authorization: `Token ${ADMIN_TOKEN}` };

/** Headers: usually the admin token and JSON, sometimes junk. */
const headersArb = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Record<string, string>>({ ...auth, 'content-type': 'application/json' }) },
  { weight: 2, arbitrary: junkHeaders.map((junk) => ({ ...auth, 'content-type': 'application/json', ...junk })) },
  { weight: 1, arbitrary: junkHeaders },
);

const idArb = (fixture: number | undefined) => fc.oneof(
  { weight: 4, arbitrary: fc.constant(String(fixture ?? 1)) },
  { weight: 1, arbitrary: fc.constantFrom('0', '2147483647', '2147483648', '99999999999999999999', '-1', '1.5', 'abc', '%00', '%ZZ', 'x'.repeat(5000), '1e3') },
);

export interface Outcome {
  cases: number;
  statuses: Map<number, number>;
  /** problems found, by their first line, with how often and one full example */
  failures: Map<string, { count: number; example: string }>;
}

export function properties(app: TestApp, fixtures: Fixtures, outcome: Outcome, collect: boolean) {
  const count = (status: number) => { outcome.cases++; outcome.statuses.set(status, (outcome.statuses.get(status) ?? 0) + 1); };
  const model = (name: string) => modelList.find((m) => m.definition.name === name)!;
  /** In collect mode a failing case is recorded and the run goes on, so one run shows every problem. */
  const check = (run: () => Promise<void>) => async (): Promise<void> => {
    try {
      await run();
    } catch (error) {
      if (!collect) throw error;
      const message = (error as Error).message;
      const key = message.split('\n')[0].replace(/\d+/g, 'N').replace(/[?][^ ]*/, '?…').slice(0, 160);
      const seen = outcome.failures.get(key);
      outcome.failures.set(key, { count: (seen?.count ?? 0) + 1, example: seen?.example ?? message.slice(0, 1500) });
    }
  };

  const reads = fc.asyncProperty(
    fc.constantFrom(...modelList.map((m) => m.definition.name)).chain((name) => fc.record({
      model: fc.constant(name),
      query: queryFor(model(name), fixtures.customFields),
      detail: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: idArb(fixtures.ids.get(name)) }),
      method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'OPTIONS'),
      headers: headersArb,
    })),
    (c) => check(async () => {
      const path = `${listPath(model(c.model))}${c.detail ? `${c.detail}/` : ''}${c.query ? `?${c.query}` : ''}`;
      const answer = await send(app, c.method, path, c.headers);
      count(answer.status);
      checkAnswer(answer, `${c.method} ${path.slice(0, 300)}`);
    })(),
  );

  const writes = fc.asyncProperty(
    fc.constantFrom(...writable.map((m) => m.definition.name)).chain((name) => fc.record({
      model: fc.constant(name),
      method: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
      detail: fc.boolean(),
      id: idArb(fixtures.ids.get(name)),
      body: bodyFor(model(name), fixtures.inputs.get(name) ?? {}),
      headers: headersArb,
    })),
    ({ model: name, method, detail, id, body, headers }) => check(async () => {
      const entry = model(name);
      const path = detail && method !== 'POST' ? `${listPath(entry)}${id}/` : listPath(entry);
      const before = await snapshot(app, entry);
      const answer = await send(app, method, path, headers, body);
      count(answer.status);
      const what = `${method} ${path.slice(0, 200)} ${body.slice(0, 300)}`;
      checkAnswer(answer, what);
      if (answer.status >= 400 && (await snapshot(app, entry)) !== before) throw new Error(`${what}: refused with ${answer.status}, but the table or the change log changed (${JSON.stringify(headers)} ${answer.text.slice(0, 300)})`);
    })(),
  );

  const extras = modelList.flatMap((entry) => entry.routes.extra.flatMap((extra) => extra.methods.map((method) => ({ model: entry.definition.name, path: extra.path, method }))));
  const actions = fc.asyncProperty(
    fc.record({
      route: extras.length ? fc.constantFrom(...extras) : fc.constant(null),
      id: fc.constantFrom('1', '2147483648', 'x'),
      query: nastyText.map((v) => new URLSearchParams({ limit: v }).toString()),
      body: fc.oneof(fc.constant(''), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), fc.constantFrom('[{}, {}]', '{"prefix_length": 99}', '{"prefix_length": -1}', '[' + '{},'.repeat(200) + '{}]', '{"name": "\\u0000"}')),
      headers: headersArb,
    }),
    ({ route, id, query, body, headers }) => check(async () => {
      if (!route) return;
      const fixture = fixtures.ids.get(route.model);
      const path = `${route.path.replace(':id', id === '1' ? String(fixture) : id)}?${query}`;
      const answer = await send(app, route.method, path, headers, route.method === 'GET' ? undefined : body);
      count(answer.status);
      checkAnswer(answer, `${route.method} ${path} ${body.slice(0, 200)}`);
    })(),
  );

  return { reads, writes, actions };
}

export interface FuzzSettings { seed: number; runs: number; shrink: boolean }

/** Runs the three properties; the share of cases: reads 45%, writes 40%, extra routes 15%. */
export async function fuzz(app: TestApp, settings: FuzzSettings): Promise<Outcome> {
  const fixtures = await prepare(app);
  const outcome: Outcome = { cases: 0, statuses: new Map(), failures: new Map() };
  const props = properties(app, fixtures, outcome, !settings.shrink);
  const share = { reads: 0.45, writes: 0.4, actions: 0.15 } as const;
  let offset = 0;
  for (const [name, property] of Object.entries(props) as [keyof typeof share, fc.IAsyncProperty<any>][]) {
    const numRuns = Math.max(1, Math.round(settings.runs * share[name]));
    // Each property gets its own seed derived from the run's, so a failure names what to replay.
    const seed = settings.seed + offset++;
    try {
      await fc.assert(property, { numRuns, seed, endOnFailure: !settings.shrink, verbose: 1 });
    } catch (error) {
      throw new Error(`fuzz property '${name}' failed (FUZZ_SEED=${settings.seed}, its seed ${seed}):\n${(error as Error).message.slice(0, 6000)}`);
    }
  }
  return outcome;
}
