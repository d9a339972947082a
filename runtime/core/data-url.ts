/**
 * A file sent as a data URL (RFC 2397), `data:<type>[;name=<file name>][;base64],<data>`: how a JSON
 * body carries an upload, and what runtime/http/form-body.ts makes of a multipart form's file.
 */
export interface DataUrl {
  type: string;
  name: string | null;
  data: Buffer;
}

/** The file a data URL holds; null when the text is not one. */
export function parseDataUrl(text: string): DataUrl | null {
  const m = /^data:([^;,]*)((?:;[^;,]*)*),/.exec(text);
  if (!m) return null;
  const params = m[2].split(';').filter(Boolean);
  const base64 = params.includes('base64');
  const name = params.find((p) => p.startsWith('name='))?.slice(5);
  const payload = text.slice(m[0].length);
  if (base64 && !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(payload)) return null;
  try {
    const data = base64 ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'latin1');
    return { type: m[1] || 'text/plain', name: name ? decodeURIComponent(name) : null, data };
  } catch {
    // a malformed %-escape
    return null;
  }
}
