/**
 * Request signatures. NetBox's `X-Hook-Signature`: the hex HMAC-SHA512 of the exact body bytes, keyed
 * by the secret. Standard Webhooks' `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>`, so a receiver can also reject replays by the timestamp
 * and duplicates by the id. For `webhook-signature`, a secret written `whsec_<base64>` is used as
 * Standard Webhooks defines it (the decoded bytes), any other as its UTF-8 bytes; `X-Hook-Signature`
 * always uses the secret's UTF-8 bytes, as NetBox does.
 */
import { createHmac } from 'node:crypto';

export function hookSignature(secret: string, body: Buffer): string {
  return createHmac('sha512', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

export function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function standardSignature(secret: string, id: string, timestamp: number, body: Buffer): string {
  const mac = createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}
