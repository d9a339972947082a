/**
 * Reading a request body without ever destroying the request. Leaving a `for await` loop early (or
 * calling destroy) closes the socket before an answer is written, and the client sees a reset instead
 * of the 413. These readers only stop listening; the rest of the body is left to the request guard
 * (runtime/http/guard.ts), which answers, stops reading and closes the connection.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError, errors } from './errors.js';

/**
 * Hands each chunk to `onChunk` until the body ends (resolves) or `onChunk` returns an error, or the
 * body cannot be read (rejects with it). Either way it stops listening.
 */
export function readChunks(req: IncomingMessage, onChunk: (chunk: Buffer) => ApiError | null): Promise<void> {
  return new Promise((resolve, reject) => {
    // A request already answered (a 408 when its body stopped arriving) is no longer aborted by
    // node:http when its connection closes: it emits nothing, so the connection's close ends the read.
    const socket = req.socket;
    const done = (error: ApiError | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      socket?.off('close', onAborted);
      if (error) reject(error);
      else resolve();
    };
    const onData = (chunk: Buffer) => {
      const error = onChunk(chunk);
      if (error) done(error);
    };
    const onEnd = () => done(null);
    const onError = (error: Error) => done(errors.badRequest(`The request body could not be read: ${error.message}.`));
    const onAborted = () => done(errors.badRequest('The request body ended early.'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
    if (!socket || socket.destroyed) return onAborted();
    socket.on('close', onAborted);
  });
}

/** A body longer than `limit` bytes. */
export function tooLarge(limit: number): ApiError {
  return new ApiError(413, { detail: `Request body too large: at most ${limit} bytes are accepted.` });
}

/**
 * A small body read whole, for the forms of the login page and the web interface: the announced
 * length and the bytes as they arrive are both held to `limit` (413 past it).
 */
export async function readSmall(req: IncomingMessage, limit: number): Promise<string> {
  return (await readSmallBytes(req, limit)).toString('utf8');
}

/** The body's bytes (a multipart form's files), at most `limit` of them. */
export async function readSmallBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers['content-length'] || 0) > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  await readChunks(req, (chunk) => {
    size += chunk.length;
    if (size > limit) return tooLarge(limit);
    chunks.push(chunk);
    return null;
  });
  return Buffer.concat(chunks);
}
