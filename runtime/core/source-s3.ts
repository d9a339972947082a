/**
 * Fetching an `amazon-s3` data source: the objects under the URL's prefix, listed and downloaded
 * with the AWS SDK's S3 client (@aws-sdk/client-s3: AWS's own maintained client, which signs
 * requests (SigV4), pages listings and speaks to S3-compatible servers by path-style URLs; it is
 * loaded only when an S3 source syncs, so other processes never pay for it).
 *
 * The URL names the bucket and prefix as NetBox's S3 backend reads it, and the virtual-hosted form
 * too:
 * - `https://s3.<region>.amazonaws.com/<bucket>/<prefix>` (or any S3-compatible server,
 *   `http://host:9000/<bucket>/<prefix>`): bucket and prefix from the path, requests to that host;
 * - `https://<bucket>.s3.<region>.amazonaws.com/<prefix>`: bucket from the host name.
 * The region comes from an amazonaws.com host name, else us-east-1. Files are named by their key
 * below the prefix. Errors never carry the secret key (nor the key id), whatever the server said.
 */
import type { S3Client } from '@aws-sdk/client-s3';

export interface S3Location {
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  pathStyle: boolean;
}

const VIRTUAL_HOSTED = /^(.+)\.s3[.-]([a-z0-9-]+)\.amazonaws\.com$/i;
const REGION = /(?:^|\.)s3[.-]([a-z0-9-]+)\.amazonaws\.com$/i;

/** Where an S3 source's URL points; a string saying what is wrong with it otherwise. */
export function s3Location(url: string): S3Location | string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'Give the bucket as an https:// URL (https://s3.<region>.amazonaws.com/<bucket>/<prefix>).';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'An Amazon S3 source needs an https:// (or http://) URL.';
  if (u.username || u.password) return 'Give the access keys as parameters, not in the URL.';
  const path = decodeURIComponent(u.pathname).replace(/^\/+/, '');
  const hosted = VIRTUAL_HOSTED.exec(u.hostname);
  if (hosted && !/^s3$/i.test(hosted[1])) {
    return { endpoint: `${u.protocol}//s3.${hosted[2]}.amazonaws.com`, region: hosted[2], bucket: hosted[1], prefix: path, pathStyle: false };
  }
  const [bucket, ...rest] = path.split('/');
  if (!bucket) return 'The URL names no bucket: https://s3.<region>.amazonaws.com/<bucket>/<prefix>.';
  const region = REGION.exec(u.hostname)?.[1] ?? 'us-east-1';
  // AWS's own hosts take virtual-hosted requests; other S3-compatible servers are addressed by path
  const aws = /\.amazonaws\.com$/i.test(u.hostname);
  return { endpoint: u.origin, region, bucket, prefix: rest.join('/'), pathStyle: !aws };
}

export interface S3Object {
  path: string;
  data: Buffer;
}

export interface S3Fetch {
  url: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** whether a file below the prefix is skipped (dot names, ignore rules) */
  skip: (path: string) => boolean;
  maxBytes: number;
  /** DATA_SOURCE_SYNC_TIMEOUT: the whole fetch is abandoned past it */
  timeoutMs: number;
}

/** Every object under the prefix (keys ending in "/" are folder markers, not files). */
export async function fetchS3(spec: S3Fetch): Promise<S3Object[]> {
  const where = s3Location(spec.url);
  if (typeof where === 'string') throw new Error(where);
  const { S3Client, ListObjectsV2Command, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const client: S3Client = new S3Client({
    region: where.region,
    endpoint: where.endpoint,
    forcePathStyle: where.pathStyle,
    // without keys the SDK's own chain (environment, instance role) answers, as boto3 does for NetBox
    credentials: spec.accessKeyId ? { accessKeyId: spec.accessKeyId, secretAccessKey: spec.secretAccessKey ?? '' } : undefined,
    maxAttempts: 2,
  });
  const prefix = where.prefix && !where.prefix.endsWith('/') ? `${where.prefix}/` : where.prefix;
  const signal = AbortSignal.timeout(spec.timeoutMs);
  try {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: where.bucket, Prefix: prefix || undefined, ContinuationToken: token }), { abortSignal: signal });
      for (const o of page.Contents ?? []) if (o.Key && !o.Key.endsWith('/')) keys.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    const found: S3Object[] = [];
    let total = 0;
    for (const key of keys.sort()) {
      const path = key.slice(prefix.length);
      if (spec.skip(path)) continue;
      const reply = await client.send(new GetObjectCommand({ Bucket: where.bucket, Key: key }), { abortSignal: signal });
      const data = Buffer.from((await reply.Body?.transformToByteArray()) ?? []);
      total += data.length;
      if (total > spec.maxBytes) throw new Error(`The source holds more than ${spec.maxBytes / 1024 / 1024} MB of files; add ignore rules for what is not needed.`);
      found.push({ path, data });
    }
    return found;
  } catch (error) {
    throw new Error(describe(error, where, spec, signal.aborted));
  } finally {
    client.destroy();
  }
}

/** What went wrong, in words, with no key in it. */
function describe(error: unknown, where: S3Location, spec: S3Fetch, timedOut: boolean): string {
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  let text: string;
  if (timedOut) text = `The S3 server did not answer within ${Math.round(spec.timeoutMs / 1000)} s (DATA_SOURCE_SYNC_TIMEOUT)`;
  else if (e.name === 'NoSuchBucket') text = `The bucket '${where.bucket}' does not exist`;
  else if (e.name === 'InvalidAccessKeyId' || e.name === 'SignatureDoesNotMatch' || e.name === 'AccessDenied' || e.$metadata?.httpStatusCode === 403) text = `Access to the bucket '${where.bucket}' was denied (${e.name ?? 403}): check aws_access_key_id and aws_secret_access_key`;
  else text = `S3 (${where.endpoint}, bucket '${where.bucket}'): ${e.message || e.name || String(error)}`;
  for (const secret of [spec.secretAccessKey, spec.accessKeyId]) if (secret) text = text.split(secret).join('***');
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
