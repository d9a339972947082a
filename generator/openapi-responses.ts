/**
 * The parts of the OpenAPI document that are not per model: error bodies and responses, and the
 * service's own routes (schema, status, token provisioning, probes and metrics).
 */
import { ref, type Schema } from './openapi-fields.js';

/** Error bodies: `{detail}`, `{field: [messages]}`, and for bulk requests one such object per element. */
export const ERROR_SCHEMAS: Record<string, Schema> = {
  ErrorDetail: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'], additionalProperties: false },
  FieldErrors: {
    type: 'object',
    description: 'Messages by field; `non_field_errors` and `__all__` for the object as a whole.',
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
  BulkFieldErrors: { type: 'array', description: 'One entry per element of the request ({} where it is valid).', items: ref('FieldErrors') },
  InternalError: { type: 'object', properties: { error: { type: 'string' }, request_id: { type: 'string' } }, required: ['error'] },
};

export const json = (schema: Schema) => ({ 'application/json': { schema } });
export const respond = (description: string, schema: Schema) => ({ description, content: json(schema) });
const ERRORS = {
  400: respond('Invalid request: a malformed body, a bad filter value or field errors', { anyOf: [ref('ErrorDetail'), ref('FieldErrors'), ref('BulkFieldErrors')] }),
  403: respond('Authentication credentials were not provided, or the action is not permitted', ref('ErrorDetail')),
  404: respond('Not found', ref('ErrorDetail')),
  405: respond('Method not allowed', ref('ErrorDetail')),
  409: respond('Dependent objects prevent the deletion', ref('ErrorDetail')),
  413: respond('Request body too large (MAX_BODY_SIZE); with Retry-After when the server is reading too many bodies at once', ref('ErrorDetail')),
  414: respond('Request target too long (MAX_URL_LENGTH)', ref('ErrorDetail')),
  406: respond('The API version asked for (Accept: application/json; version=X.Y, or the /vX.Y/ base) is not served; the message names those that are', ref('ErrorDetail')),
  412: respond('The object changed since the ETag given in If-Match; ETag names its current tag', ref('ErrorDetail')),
  415: respond('Unsupported media type', ref('ErrorDetail')),
  429: respond('Too many failed password attempts from this client; see Retry-After', ref('ErrorDetail')),
  431: respond('Request line and headers too large (MAX_HEADER_SIZE)', ref('ErrorDetail')),
  500: respond('Unexpected server error', ref('InternalError')),
};
export type ErrorCode = keyof typeof ERRORS;
/** Any request may be malformed (a bad Host header or query string), too large to read, or ask for a version not served. */
const ANY_REQUEST: ErrorCode[] = [400, 406, 414, 431];
export const errorResponses = (...codes: ErrorCode[]) => Object.fromEntries([...new Set([...codes, ...ANY_REQUEST])].map((c) => [c, ERRORS[c]]));
export const READ_ERRORS: ErrorCode[] = [400, 403, 500];
export const WRITE_ERRORS: ErrorCode[] = [400, 403, 413, 415, 500];

/** Routes of the runtime that are not model endpoints. */
/** The requesting user's dashboard: widget positions and their settings. */
function dashboardPath(): Schema {
  const board = { type: 'object', required: ['layout', 'config'], properties: { layout: { type: 'array', items: { type: 'object' } }, config: { type: 'object' } } };
  const body = (partial: boolean) => ({ required: true, content: json(partial ? { ...board, required: [] } : board) });
  const ok = { 200: respond('The dashboard', board), ...errorResponses(400, 403, 500) };
  return {
    get: { operationId: 'extras_dashboard_retrieve', tags: ['extras'], responses: { 200: respond('The dashboard', board), ...errorResponses(403, 500) } },
    put: { operationId: 'extras_dashboard_update', tags: ['extras'], requestBody: body(false), responses: ok },
    patch: { operationId: 'extras_dashboard_partial_update', tags: ['extras'], requestBody: body(true), responses: ok },
    delete: { operationId: 'extras_dashboard_destroy', tags: ['extras'], responses: { 204: { description: 'Deleted' }, ...errorResponses(403, 500) } },
  };
}

export function servicePaths(): Record<string, Schema> {
  const status: Schema = {
    type: 'object',
    required: ['netbox-version', 'netledger-version', 'database', 'installed-apps', 'plugins', 'rq-workers-running'],
    properties: {
      'django-version': { type: ['string', 'null'] },
      'installed-apps': { type: 'object', additionalProperties: { type: ['string', 'null'] } },
      'netbox-version': { type: 'string' },
      'netledger-version': { type: 'string' },
      'node-version': { type: 'string' },
      database: { type: 'string', enum: ['postgresql', 'sqlite'] },
      plugins: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
      'python-version': { type: ['string', 'null'] },
      'rq-workers-running': { type: 'integer', minimum: 0, description: 'Webhook workers running' },
    },
    additionalProperties: false,
  };
  const probe: Schema = { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok', 'unavailable'] }, database: { type: 'string' }, migrations: { type: 'string' } } };
  const format = { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'yaml'] } };
  return {
    '/api/schema/': {
      get: {
        operationId: 'schema_retrieve', tags: ['schema'], security: [{}], parameters: [format],
        description: 'This OpenAPI document: JSON, or YAML with `?format=yaml` or an Accept header asking for YAML.',
        responses: { 200: { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } }, 'application/vnd.oai.openapi': { schema: { type: 'object' } } } } },
      },
    },
    '/api/status/': {
      get: { operationId: 'status_retrieve', tags: ['status'], security: [{}], responses: { 200: respond('Versions and workers', status), ...errorResponses(500) } },
    },
    '/healthz': {
      get: { operationId: 'healthz', tags: ['operations'], security: [{}], description: 'The process is alive (no database query).', responses: { 200: respond('Alive', probe) } },
    },
    '/readyz': {
      get: {
        operationId: 'readyz', tags: ['operations'], security: [{}], description: 'The database answers and every migration is applied.',
        responses: { 200: respond('Ready', probe), 503: respond('Not ready: the database or a pending migration, with the reason', probe) },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics', tags: ['operations'], security: [{}, { tokenAuth: [] }],
        description: 'Prometheus text format. Without a token, only from the addresses in METRICS_ALLOWED (default loopback).',
        responses: { 200: { description: 'Metrics', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errorResponses(403) },
      },
    },
    '/api/users/config/': {
      get: { operationId: 'users_config_retrieve', tags: ['users'], description: "The requesting user's preferences.", responses: { 200: respond('The preferences', { type: 'object' }), ...errorResponses(403, 500) } },
      patch: {
        operationId: 'users_config_partial_update', tags: ['users'], description: 'Deep-merges the body into the preferences.',
        requestBody: { required: true, content: json({ type: 'object' }) }, responses: { 200: respond('The merged preferences', { type: 'object' }), ...errorResponses(400, 403, 500) },
      },
    },
    '/api/extras/dashboard/': dashboardPath(),
    '/api/users/tokens/provision/': {
      post: {
        operationId: 'users_tokens_provision_create', tags: ['users'], security: [{}],
        description: 'A username and password buy a new write-enabled token; its key is shown in full once.',
        requestBody: {
          required: true,
          content: json({ type: 'object', required: ['username', 'password'], properties: { username: { type: 'string' }, password: { type: 'string', writeOnly: true }, expires: { type: ['string', 'null'], format: 'date-time' }, description: { type: 'string' }, write_enabled: { type: 'boolean' } } }),
        },
        responses: { 201: respond('The new token', ref('Token')), ...errorResponses(...WRITE_ERRORS, 429) },
      },
    },
  };
}
