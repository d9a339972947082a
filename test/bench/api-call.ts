/**
 * The benches' API client: JSON in and out with the bench's token; a 4xx or 5xx throws with the
 * method, path and the start of the answer.
 */
export type Call = (method: string, path: string, body?: unknown) => Promise<any>;

export function apiCall(base: string, token: string): Call {
  return async (method, path, body) => {
    const res = await fetch(base + path, { method, headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${base}: ${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };
}
