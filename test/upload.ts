/**
 * A client that keeps sending a chunked body until the server answers: the oversized-body tests use it
 * to see when the answer arrives (the status line, measured from the request's start) and how much
 * had been sent by then.
 */
import { request } from 'node:http';

export interface Answer {
  status: number;
  body: string;
  /** bytes written before the answer arrived */
  sent: number;
  /** milliseconds from the request's start to its status line */
  ms: number;
  retryAfter?: string;
  connection?: string;
  /** the request failed before any answer (a reset, say) */
  error?: string;
}

/** Streams up to `total` bytes of `fill` as a chunked body to `path`, stopping as soon as an answer arrives. */
export function upload(url: URL, path: string, headers: Record<string, string>, total: number, fill = 0x20): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, fill);
    let sent = 0;
    let stopped = false;
    const req = request({ host: url.hostname, port: url.port, method: 'POST', path, headers: { ...headers, 'Transfer-Encoding': 'chunked' } }, (res) => {
      stopped = true;
      const ms = performance.now() - started;
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sent, ms, retryAfter: res.headers['retry-after'], connection: res.headers.connection }));
    });
    // Writing after the answer may fail (the server closes); the answer is what counts.
    req.on('error', (error) => { if (!stopped) resolve({ status: 0, body: '', sent, ms: performance.now() - started, error: error.message }); });
    const pump = () => {
      while (!stopped && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) { req.once('drain', pump); return; }
      }
      if (!stopped) req.end();
    };
    pump();
  });
}
