/**
 * A multipart/form-data body (an image attachment's upload, as NetBox takes it) read into the object
 * a JSON body would give: text fields as strings, each file as a data URL
 * (`data:<type>;name=<file name>;base64,<bytes>`), the form a JSON client may send it in too. A
 * field sent more than once becomes a list. Parsed by the platform's own Response.formData().
 */
import { errors } from '../core/errors.js';

export function isMultipart(contentType: string): boolean {
  return contentType.split(';')[0].trim().toLowerCase() === 'multipart/form-data';
}

export async function formBody(bytes: Uint8Array, contentType: string): Promise<Record<string, unknown>> {
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw errors.badRequest(`Multipart form parse error: ${(error as Error).message}`);
  }
  const out: Record<string, unknown> = {};
  for (const key of new Set(form.keys())) {
    const values = await Promise.all(form.getAll(key).map(async (v) => {
      if (typeof v === 'string') return v;
      const type = v.type || 'application/octet-stream';
      return `data:${type};name=${encodeURIComponent(v.name)};base64,${Buffer.from(await v.arrayBuffer()).toString('base64')}`;
    }));
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}
