/**
 * OpenAPI 3.1 description of the API, built from the same resolved tables the runtime serves, so the
 * document and the behaviour cannot drift apart. The test suite holds it to that: every JSON answer a
 * test receives is validated against it (test/openapi-check.ts).
 *
 * Per model: `<Model>` (full form), `Brief<Model>` (?brief=1), `Nested<Model>` (inside other
 * objects), `Writable<Model>` (POST and PUT bodies), `PatchedWritable<Model>` (PATCH bodies) and
 * `Paginated<Model>List`. Every filter appears as a query parameter with each lookup it accepts.
 * Paths are `/api/<app>/<endpoint>/` (nb_inventory reads `paths["/api/dcim/devices/"].get.parameters`).
 * The output is deterministic: names are sorted and nothing depends on time or environment.
 */
import type { ChoiceSet, ModelEntry } from '../runtime/core/types.js';
import { Builder, FIELD_SELECTION, ref, type Schema } from './openapi-fields.js';
import { ERROR_SCHEMAS, READ_ERRORS, WRITE_ERRORS, errorResponses, json, respond, servicePaths, type ErrorCode } from './openapi-responses.js';

export { LOOKUPS } from './openapi-fields.js';

/** The If-Match header of one object's write, in a version with entity tags. */
const IF_MATCH = { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' }, description: 'Writes only if the object still has one of these ETags (as a read answered them); else 412.' };

export function buildOpenApi(entries: ModelEntry[], choiceSets: ChoiceSet[], version: { version: string; netbox: string; cursor_pagination?: boolean; field_selection?: boolean; partial_tags?: boolean; etags?: boolean }): Schema {
  const b = new Builder(entries, choiceSets, !!version.cursor_pagination, !!version.field_selection, !!version.partial_tags);
  const schemas: Record<string, Schema> = { ...ERROR_SCHEMAS };
  const paths: Record<string, Schema> = {};
  for (const entry of entries) {
    const { definition: d, serializer, routes } = entry;
    const name = d.name;
    // config_context may be left out with ?exclude=config_context.
    schemas[name] = b.representation(d, serializer.full, 'full', serializer.full.filter((n) => n !== 'config_context'));
    schemas[`Brief${name}`] = b.representation(d, serializer.brief, 'brief', serializer.brief);
    schemas[`Nested${name}`] = b.representation(d, serializer.nested, 'nested', serializer.nested);
    schemas[`Paginated${name}List`] = {
      type: 'object', required: ['count', 'next', 'previous', 'results'], additionalProperties: false,
      properties: {
        // null in a cursor-paginated answer (`start`), which does not count
        count: version.cursor_pagination ? { type: ['integer', 'null'], minimum: 0 } : { type: 'integer', minimum: 0 },
        next: { type: ['string', 'null'], format: 'uri' },
        previous: { type: ['string', 'null'], format: 'uri' },
        results: { type: 'array', items: { anyOf: [ref(name), ref(`Brief${name}`)] } },
      },
    };
    const op = (suffix: string) => `${d.app}_${d.endpoint.replace(/-/g, '_')}_${suffix}`;
    const tags = [d.app];
    const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer' }, description: `A unique integer value identifying this ${d.verboseName}.` };
    const briefParam = { name: 'brief', in: 'query', required: false, schema: { type: 'boolean' }, description: 'Return the brief representation.' };
    const excludeParam = d.fields.config_context ? [{ name: 'exclude', in: 'query', required: false, schema: { type: 'string', enum: ['config_context'] }, description: 'Omit the rendered configuration context.' }] : [];
    const one = { anyOf: [ref(name), ref(`Brief${name}`)] };
    const list: Schema = {
      get: { operationId: op('list'), tags, parameters: b.parameters(entry), responses: { 200: respond('OK', ref(`Paginated${name}List`)), ...errorResponses(...READ_ERRORS) } },
    };
    const detail: Schema = {
      get: { operationId: op('retrieve'), tags, parameters: [id, briefParam, ...excludeParam, ...(version.field_selection ? FIELD_SELECTION : [])], responses: { 200: respond('OK', one), ...errorResponses(403, 404, 500) } },
    };
    if (!d.readOnly) {
      schemas[`Writable${name}`] = b.writable(d, false);
      schemas[`PatchedWritable${name}`] = b.writable(d, true);
      const withId = (schema: string) => ({ allOf: [ref(schema), { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }] });
      const bulk = (schema: string) => ({ required: true, content: json({ type: 'array', items: withId(schema) }) });
      const many = { type: 'array', items: ref(name) };
      // a write's answer takes the field selection a read does
      const selection = version.field_selection ? { parameters: FIELD_SELECTION } : {};
      // one object's write may be guarded by If-Match (412 when the object changed since)
      const guard = version.etags ? [IF_MATCH] : [];
      const guarded: ErrorCode[] = version.etags ? [412] : [];
      list.post = {
        operationId: op('create'), tags, ...selection,
        requestBody: { required: true, content: json({ oneOf: [ref(`Writable${name}`), { type: 'array', items: ref(`Writable${name}`) }] }) },
        responses: { 201: respond('Created: the object, or the objects of a list in order', { oneOf: [ref(name), many] }), ...errorResponses(...WRITE_ERRORS) },
      };
      list.put = { operationId: op('bulk_update'), tags, ...selection, requestBody: bulk(`Writable${name}`), responses: { 200: respond('OK', many), ...errorResponses(...WRITE_ERRORS) } };
      list.patch = { operationId: op('bulk_partial_update'), tags, ...selection, requestBody: bulk(`PatchedWritable${name}`), responses: { 200: respond('OK', many), ...errorResponses(...WRITE_ERRORS) } };
      list.delete = {
        operationId: op('bulk_destroy'), tags,
        requestBody: { required: true, content: json({ type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } }) },
        responses: { 204: { description: 'Deleted' }, ...errorResponses(...WRITE_ERRORS, 409) },
      };
      detail.put = { operationId: op('update'), tags, parameters: [id, ...guard, ...(selection.parameters ?? [])], requestBody: { required: true, content: json(ref(`Writable${name}`)) }, responses: { 200: respond('OK', ref(name)), ...errorResponses(...WRITE_ERRORS, 404, ...guarded) } };
      detail.patch = { operationId: op('partial_update'), tags, parameters: [id, ...guard, ...(selection.parameters ?? [])], requestBody: { required: true, content: json(ref(`PatchedWritable${name}`)) }, responses: { 200: respond('OK', ref(name)), ...errorResponses(...WRITE_ERRORS, 404, ...guarded) } };
      detail.delete = { operationId: op('destroy'), tags, parameters: [id, ...guard], responses: { 204: { description: 'Deleted' }, ...errorResponses(403, 404, 409, 500, ...guarded) } };
    }
    paths[routes.list] = list;
    paths[routes.detail.replace(':id', '{id}')] = detail;
    if (routes.legacy) {
      // where NetBox 3.6 had the model: the same operations, deprecated
      const legacy = (ops: Schema) => Object.fromEntries(Object.entries(ops as Record<string, Schema>).map(([m, o]) => [m, { ...o, operationId: `${String(o.operationId)}_legacy`, deprecated: true }]));
      paths[routes.legacy.list] = legacy(list);
      paths[routes.legacy.detail.replace(':id', '{id}')] = legacy(detail);
    }
    // `actions:` in the YAML: extra detail routes, answered with the object after the action
    for (const extra of routes.extra) {
      const action = extra.path.split('/').at(-2)!.replace(/-/g, '_');
      paths[extra.path.replace(':id', '{id}')] = Object.fromEntries(extra.methods.map((m) => {
        const returns = extra.returns?.[m];
        const status = returns?.status ?? 200;
        const body = returns?.model
          ? (returns.many ? { oneOf: [ref(returns.model), { type: 'array', items: ref(returns.model) }] } : ref(returns.model))
          : returns?.schema ?? ref(name);
        return [m.toLowerCase(), {
          operationId: op(extra.methods.length > 1 ? `${action}_${m.toLowerCase()}` : action), tags, parameters: extra.app ? [] : [id],
          responses: { [status]: respond(returns ? 'OK' : 'OK: the object after the action', body), ...errorResponses(400, 403, 404, 409, 500) },
        }];
      }));
    }
  }
  Object.assign(paths, servicePaths());
  const sorted = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.1.0',
    info: { title: 'NetLedger REST API', version: `${version.netbox} (NetLedger 0.1.0)`, description: `Infrastructure inventory API, compatible with NetBox ${version.version}.` },
    paths: sorted(paths),
    components: {
      schemas: sorted(schemas),
      securitySchemes: { tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Token <key>`' } },
    },
    security: [{ tokenAuth: [] }],
  };
}
