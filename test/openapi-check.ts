/**
 * Holds the OpenAPI document to its word: every JSON response a test receives is checked against the
 * document's schema for its path, method and status (test/helpers.ts calls `checkResponse`).
 *
 * - The component schemas are compiled once per process with ajv (JSON Schema 2020-12, which is what
 *   OpenAPI 3.1 uses), formats included; each response schema is compiled on first use.
 * - A request path is matched to the document's templated paths (`/api/dcim/devices/{id}/`).
 * - Paths and methods the document does not describe (the /api/ roots, OPTIONS, the docs page) are
 *   skipped, and so are redirects, 204s and bodies that are not JSON.
 * - A described operation answering with a status it does not list, or a body that does not match,
 *   throws an error naming the path, method, status and ajv's complaints.
 *
 * OPENAPI_CHECK=0 turns the check off (for debugging only).
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { apiVersions } from '../generated/versions.js';

type Json = any;

const DOCUMENT_ID = 'https://netledger.invalid/openapi.json';

interface Operation {
  template: string;
  responses: Record<string, Json>;
}

interface Checker {
  document: Json;
  match(method: string, path: string): Operation | null;
  validator(op: Operation, method: string, status: string): ValidateFunction | null | 'undocumented';
}

/** One checker per API version's document (generated/versions.ts names the files). */
const checkers = new Map<string, Checker>();

/** Refs inside the document (`#/components/...`) made absolute, so a response schema compiles on its own. */
function absoluteRefs(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(absoluteRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOCUMENT_ID}${v}` : absoluteRefs(v);
  return out;
}

export function loadChecker(document?: Json, file = 'openapi.json'): Checker {
  const doc = document ?? JSON.parse(readFileSync(new URL(`../generated/${file}`, import.meta.url), 'utf8'));
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true, validateFormats: true });
  (addFormatsModule as unknown as (a: unknown) => void)(ajv);
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: doc.components?.schemas ?? {} } });
  const templates = Object.keys(doc.paths ?? {}).map((template) => ({
    template,
    regex: new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`),
    // Literal paths win over templated ones.
    params: (template.match(/\{/g) ?? []).length,
  })).sort((a, b) => a.params - b.params);
  const compiled = new Map<string, ValidateFunction | null>();
  return {
    document: doc,
    match(method, path) {
      const found = templates.find((t) => t.regex.test(path));
      if (!found) return null;
      const op = doc.paths[found.template][method.toLowerCase()];
      return op ? { template: found.template, responses: op.responses ?? {} } : null;
    },
    validator(op, method, status) {
      const key = `${method} ${op.template} ${status}`;
      if (compiled.has(key)) return compiled.get(key)!;
      const response = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses.default;
      if (!response) return 'undocumented';
      const schema = response.content?.['application/json']?.schema;
      const fn = schema ? ajv.compile(absoluteRefs(schema)) : null;
      compiled.set(key, fn);
      return fn;
    },
  };
}

function describeErrors(list: ErrorObject[] | null | undefined): string {
  return (list ?? []).slice(0, 12).map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');
}

/** Throws when a JSON response contradicts the document (see the file comment for what is skipped). */
export function checkResponse(method: string, url: string, status: number, contentType: string | null, body: unknown, apiVersion?: string | null): void {
  if (process.env.OPENAPI_CHECK === '0') return;
  if (method === 'HEAD' || status === 204 || (status >= 300 && status < 400)) return;
  if (!contentType || !/[/+]json\b/i.test(contentType)) return;
  // The document of the version that answered (API-Version), paths without their version prefix.
  const file = apiVersions.versions.find((v) => v.version === (apiVersion ?? apiVersions.default))?.document ?? 'openapi.json';
  let checker = checkers.get(file);
  if (!checker) checkers.set(file, (checker = loadChecker(undefined, file)));
  const parsed = new URL(url, 'http://x');
  // ?fields= and ?omit= answer part of a representation, which the document (as NetBox's) describes whole
  if ((status === 200 || status === 201) && (parsed.searchParams.get('fields') || parsed.searchParams.get('omit')) && apiVersions.versions.find((v) => v.version === apiVersion)?.fieldSelection) return;
  const path = parsed.pathname.replace(/^\/v\d+\.\d+(?=\/api\/)/, '');
  const op = checker.match(method, path);
  if (!op) return;
  const validate = checker.validator(op, method, String(status));
  if (validate === 'undocumented') {
    throw new Error(`OpenAPI: ${method} ${path} (${op.template}) answered ${status}, which the document does not list for this operation. Body: ${JSON.stringify(body).slice(0, 400)}`);
  }
  if (validate && !validate(body)) {
    throw new Error(`OpenAPI: ${method} ${path} (${op.template}) ${status} does not match the document: ${describeErrors(validate.errors)}. Body: ${JSON.stringify(body).slice(0, 400)}`);
  }
}
