/**
 * One outbound HTTP request with a hard deadline. TLS follows the webhook: `ssl_verification` off
 * accepts any certificate; a CA file replaces the default trust store. Connections are kept alive in
 * agents owned by one worker (one agent per TLS setting), and a request that fails on a reused
 * keep-alive socket before any response is sent once more on a fresh one, as Node's docs advise.
 */
import http from 'node:http';
import https from 'node:https';
import { readFileSync, statSync } from 'node:fs';

export interface OutboundRequest {
  method: string;
  url: URL;
  headers: [string, string][];
  body: Buffer;
}

export interface TlsOptions {
  sslVerification: boolean;
  caFilePath: string | null;
}

export interface Response {
  status: number;
  /** the start of the response body, for the delivery's record */
  excerpt: string;
}

/** The most of a response body that is read; the rest is dropped with the connection. */
const READ_LIMIT = 64 * 1024;
const EXCERPT = 1000;

export class TimeoutError extends Error {}

export class Agents {
  private agents = new Map<string, http.Agent>();

  get(url: URL, tls: TlsOptions): http.Agent {
    if (url.protocol === 'http:') return this.cached('http', () => new http.Agent({ keepAlive: true, timeout: 2000 }));
    if (!tls.sslVerification) return this.cached('https:insecure', () => new https.Agent({ keepAlive: true, timeout: 2000, rejectUnauthorized: false }));
    if (!tls.caFilePath) return this.cached('https', () => new https.Agent({ keepAlive: true, timeout: 2000 }));
    const path = tls.caFilePath;
    // A replaced CA file gets a new agent (keyed by modification time).
    const stamp = statSync(path).mtimeMs;
    return this.cached(`https:ca:${path}:${stamp}`, () => new https.Agent({ keepAlive: true, timeout: 2000, ca: readFileSync(path) }));
  }

  private cached(key: string, make: () => http.Agent): http.Agent {
    let agent = this.agents.get(key);
    if (!agent) this.agents.set(key, (agent = make()));
    return agent;
  }

  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

function once(request: OutboundRequest, agent: http.Agent, deadline: number): Promise<Response> {
  return new Promise((resolve, reject) => {
    const transport = request.url.protocol === 'https:' ? https : http;
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of request.headers) headers[name] = value;
    headers['Content-Length'] = String(request.body.length);
    let settled = false;
    const finish = (error: Error | null, response?: Response) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(response!);
    };
    const req = transport.request(request.url, { method: request.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => finish(null, { status: res.statusCode ?? 0, excerpt: Buffer.concat(chunks).subarray(0, EXCERPT * 4).toString('utf8').slice(0, EXCERPT) });
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= READ_LIMIT) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', (error) => finish(error));
      res.on('close', () => { if (!res.complete) done(); });
    });
    const timer = setTimeout(() => {
      const error = new TimeoutError('no response before the timeout');
      finish(error);
      req.destroy(error);
    }, Math.max(1, deadline - Date.now()));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!settled && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
        (error as Error & { retryable?: boolean }).retryable = true;
      }
      finish(error);
    });
    req.end(request.body);
  });
}

/** Sends a request; rejects on a connection error, a TLS error or the timeout. */
export async function send(request: OutboundRequest, tls: TlsOptions, timeoutMs: number, agents: Agents): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  const agent = agents.get(request.url, tls);
  try {
    return await once(request, agent, deadline);
  } catch (error) {
    if ((error as { retryable?: boolean }).retryable && Date.now() < deadline) return once(request, agent, deadline);
    throw error;
  }
}
