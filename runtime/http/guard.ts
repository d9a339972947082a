/**
 * What every request must satisfy before any work is done for it: a request target of bounded length,
 * a Host header that can form a URL, a query string of bounded size without NUL characters, and control
 * parameters given once. Also the server's own limits (header size, timeouts) and how a connection
 * ends when its request was answered before its body was read: the rest of the body is read and
 * discarded for a moment, so a client still sending gets the answer instead of a reset, then closed.
 */
import type { ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Context, Next } from 'koa';
import { ApiError, errors } from '../core/errors.js';
import type { Config } from '../core/config.js';
import type { Limits } from '../core/limits.js';
import { announcesBody, type BodyProgress } from './body.js';

/** Parameters that take one value: giving one twice is ambiguous, so it is refused. */
export const SINGLE_VALUED = ['limit', 'offset', 'brief', 'ordering', 'format', 'q'];

const HOST_NAME = /^[A-Za-z0-9._~-]+$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;

/** Can `host` (a Host header: name or address, optional port) form the authority of a URL? */
export function validHost(host: string): boolean {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(host);
  if (!m) return false;
  const [, name, port] = m;
  if (!(IPV6.test(name) || HOST_NAME.test(name))) return false;
  if (port !== undefined && Number(port) > 65535) return false;
  try {
    new URL(`http://${host}/`);
    return true;
  } catch {
    return false;
  }
}

/** The server's own address, for a request that names no host (HTTP/1.0 without Host). */
function localAuthority(socket: Socket): string {
  const address = socket.localAddress ?? '127.0.0.1';
  return `${address.includes(':') ? `[${address}]` : address}:${socket.localPort}`;
}

function checkQuery(querystring: string, limits: Limits): void {
  if (!querystring) return;
  const params = new URLSearchParams(querystring);
  const counts = new Map<string, number>();
  let total = 0;
  const problems: Record<string, string[]> = {};
  for (const [name, value] of params) {
    total++;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if ((name.includes('\0') || value.includes('\0')) && !problems[name]) problems[name.replace(/\0/g, '\\u0000')] = ['Null characters are not allowed.'];
  }
  if (total > limits.maxQueryValues) throw errors.badRequest(`The query string carries ${total} values; at most ${limits.maxQueryValues} are accepted.`);
  for (const [name, n] of counts) {
    if (n > limits.maxParameterValues) problems[name] = [`At most ${limits.maxParameterValues} values are accepted for one parameter; ${n} were given.`];
    else if (n > 1 && SINGLE_VALUED.includes(name)) problems[name] = [`Give this parameter once; it was given ${n} times.`];
  }
  if (Object.keys(problems).length) throw errors.validation(problems);
}

/** Bytes of a refused body that are still read and discarded, so that its client can finish sending. */
const DISCARD_AT_MOST = 2 * 1024 * 1024;

/**
 * Ends a connection whose request was answered before its body was read. node:http would destroy
 * the socket right after the answer, and a client still uploading would see a reset (often losing
 * the answer with it). Instead the connection lingers for `lingerTimeout`: a body whose announced
 * rest is small is read and discarded (clients that read only after sending, as Python's requests
 * does, then get the answer); anything larger, or of unknown length, is simply not read any more,
 * which costs nothing, and the client is held back by TCP until the connection closes.
 */
function lingerAndClose(ctx: Context, lingerMs: number): void {
  const req = ctx.req;
  const socket = req.socket as (Socket & { destroySoon?: () => void }) | null;
  ctx.set('Connection', 'close');
  // Already gone (the client closed, or something destroyed the request): nothing to linger on.
  if (!socket) return;
  const announced = Number(req.headers['content-length'] ?? NaN);
  const rest = announced - ((ctx.state as BodyProgress).bodyBytesRead ?? 0);
  if (!(rest <= DISCARD_AT_MOST)) {
    // read(0) marks the body as consumed, so node:http does not resume it to discard it.
    req.read(0);
    req.pause();
  }
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    const timer = setTimeout(() => this.destroy(), lingerMs);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

/** The first middleware after error handling: refuses malformed requests before any work. */
/** A request that names no host (HTTP/1.0 without Host) is treated as addressed to the server itself, before anything builds a URL. */
export function hostFallback(config: Config) {
  return (ctx: Context, next: Next): Promise<void> => {
    if (!ctx.get('Host') && !(config.trustProxy && ctx.get('X-Forwarded-Host'))) ctx.req.headers.host = localAuthority(ctx.req.socket);
    return next();
  };
}

export function requestGuard(config: Config) {
  const { limits } = config;
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      const target = ctx.req.url ?? '';
      if (target.length > limits.maxUrlLength) {
        throw new ApiError(414, { detail: `Request target too long: ${target.length} characters; at most ${limits.maxUrlLength} are accepted.` });
      }
      if (!validHost(ctx.host)) throw errors.validation({ Host: [`'${ctx.host.slice(0, 200)}' is not a valid host: expected a name or an address, with an optional port up to 65535.`] });
      if (ctx.protocol !== 'http' && ctx.protocol !== 'https') throw errors.validation({ 'X-Forwarded-Proto': [`'${ctx.protocol.slice(0, 200)}' is neither http nor https.`] });
      checkQuery(ctx.querystring, limits);
      await next();
    } finally {
      // Answered without reading all of the body (refused, redirected, not found...).
      if (announcesBody(ctx.req) && !ctx.req.complete) lingerAndClose(ctx, limits.lingerTimeout);
    }
  };
}

/** node:http options that bound what one connection may hold: header size and timeouts. */
export function serverOptions(limits: Limits): ServerOptions {
  return {
    maxHeaderSize: limits.maxHeaderSize,
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeout),
  };
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request line and headers too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request not received in time'],
  ERR_HTTP_HEADERS_TIMEOUT: [408, 'Request headers not received in time'],
};

/**
 * Requests node:http cannot parse (oversized headers, malformed request lines, timeouts) are
 * answered in JSON, like every other error (without a body when the request may be a HEAD), and the
 * connection lingers before it closes.
 */
export function onClientError(limits: Limits) {
  const answered = new WeakSet<Socket>();
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const [status, reason] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Malformed request'];
    const body = JSON.stringify({ detail: `${reason}${error.code === 'HPE_HEADER_OVERFLOW' ? `: at most ${limits.maxHeaderSize} bytes are accepted` : ''}.` });
    const inProgress = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (inProgress) {
      // A request is being answered. Its body stopped arriving: answer 408 now (the handler still
      // waiting for the body finds the connection closed). Bytes after it that are no request (a body
      // the client did not announce): the answer in progress goes out first, then the connection closes.
      inProgress.shouldKeepAlive = false;
      if (status === 408 && !inProgress.headersSent) {
        inProgress.writeHead(408, { 'Content-Type': 'application/json', Connection: 'close' }).end(body);
        // The connection closes even if the client never does: that also ends the read of the body
        // still waited for (and frees its share of the body budget).
        const timer = setTimeout(() => socket.destroy(), limits.lingerTimeout);
        timer.unref();
        socket.once('close', () => clearTimeout(timer));
      }
      return;
    }
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // No answer to HEAD has a body: the JSON goes out only when the request line names another method.
    const method = /^([A-Z]+) /.exec((error as { rawPacket?: Buffer }).rawPacket?.toString('latin1', 0, 16) ?? '')?.[1];
    const sent = method && method !== 'HEAD' ? body : '';
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(sent)}\r\nConnection: close\r\n\r\n${sent}`);
    socket.on('data', () => {});
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), limits.lingerTimeout);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}

