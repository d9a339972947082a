/**
 * A small request body read whole, for the forms of the login page and the web interface: the
 * announced length and the bytes as they arrive are both held to `limit` (413 past it).
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.js';

export async function readSmall(req: IncomingMessage, limit: number): Promise<string> {
  const tooLarge = () => new ApiError(413, { detail: 'Request body too large.' });
  if (Number(req.headers['content-length'] || 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
