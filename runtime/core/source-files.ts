/**
 * Fetching a data source's files to a folder of this machine: a local directory is read where it
 * is; a git repository is cloned (shallow, one branch) into a temporary folder with the git client,
 * which never prompts (GIT_TERMINAL_PROMPT=0, no askpass) and is killed after the timeout. Then the
 * files are walked: names and folders starting with a dot are skipped, as are names an ignore rule
 * matches. An `amazon-s3` source's objects are listed and downloaded (core/source-s3.ts) and kept by
 * the same rules. A failure is a SourceError whose message says what went wrong, for the job's `error`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { matchesAny } from './fnmatch.js';
import { fetchS3 } from './source-s3.js';

export class SourceError extends Error {}

export interface SourceSpec {
  type: string;
  url: string;
  parameters: Record<string, unknown>;
  ignoreRules: string;
  timeoutMs: number;
}

export interface SourceFile {
  path: string;
  size: number;
  hash: string;
  data: Buffer;
}

/** The folder a local source names: a plain path or a file:// URL. */
export function localPath(url: string): string {
  if (/^file:/i.test(url)) {
    try {
      return fileURLToPath(url);
    } catch {
      throw new SourceError(`'${url}' is not a file URL of this machine.`);
    }
  }
  return url;
}

/** A local source's folder is absolute: a relative one would depend on where the service was started. */
export function isAbsolutePath(url: string): boolean {
  try {
    return isAbsolute(localPath(url));
  } catch {
    return false;
  }
}

/** Without a scheme, or file://: what a local source accepts. */
export function isLocalUrl(url: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  return !scheme || scheme === 'file';
}

/** The URL git is given: http(s) credentials from the parameters go into it, percent-encoded. */
function gitUrl(url: string, parameters: Record<string, unknown>): string {
  const { username, password } = parameters;
  if (!username || !/^https?:/i.test(url)) return url;
  const u = new URL(url);
  u.username = encodeURIComponent(String(username));
  if (password) u.password = encodeURIComponent(String(password));
  return u.toString();
}

/** Hides credentials in git's messages. */
function redact(text: string, parameters: Record<string, unknown>): string {
  let out = text.replace(/(\/\/)[^/@\s]+@/g, '$1***@');
  if (parameters.password) out = out.split(String(parameters.password)).join('***');
  return out;
}

/**
 * Runs git in a process group of its own: git hands the transfer to helpers (git-remote-http...),
 * and a remote that accepts and never answers leaves them waiting. Past the timeout the whole
 * group is killed, so no helper outlives the sync and none holds the job open by its stderr.
 */
function git(args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '', GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=15', GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' },
    });
    let stderr = '';
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { if (stderr.length < 64 * 1024) stderr += chunk; });
    const timer = setTimeout(() => {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* the group is already gone */ }
      child.stderr.destroy();
      settle(new SourceError(`git did not finish within ${Math.round(timeoutMs / 1000)} s (DATA_SOURCE_SYNC_TIMEOUT).`));
    }, timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      settle(error.code === 'ENOENT' ? new SourceError('The git client is not installed on this server.') : new SourceError(`git could not start: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      if (code === 0) return settle();
      const message = stderr.trim().split('\n').filter((l) => l && !l.startsWith('Cloning into')).join(' ');
      settle(new SourceError(message || `git failed (${code ?? signal}).`));
    });
  });
}

async function cloneGit(spec: SourceSpec, into: string): Promise<void> {
  const branch = spec.parameters.branch;
  const args = ['-c', 'protocol.ext.allow=never', '-c', 'credential.helper=', 'clone', '--quiet', '--depth', '1', '--single-branch', '--no-tags'];
  if (branch) args.push('--branch', String(branch));
  args.push('--', gitUrl(spec.url, spec.parameters), into);
  try {
    await git(args, spec.timeoutMs);
  } catch (error) {
    if (error instanceof SourceError) throw new SourceError(redact(error.message, spec.parameters));
    throw error;
  }
}

async function walk(root: string, rules: string, prefix = ''): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) found.push(...(await walk(root, rules, path)));
    else if (entry.isFile() && !matchesAny(entry.name, rules)) found.push(path);
  }
  return found;
}

/** What one sync reads at most, all files together: the files are held in memory until written. */
const MAX_TOTAL_BYTES = 256 * 1024 * 1024;

async function readAll(root: string, rules: string): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  let total = 0;
  for (const path of (await walk(root, rules)).sort()) {
    const data = await readFile(join(root, path));
    total += data.length;
    if (total > MAX_TOTAL_BYTES) throw new SourceError(`The source holds more than ${MAX_TOTAL_BYTES / 1024 / 1024} MB of files; add ignore rules for what is not needed.`);
    files.push({ path, size: data.length, hash: createHash('sha256').update(data).digest('hex'), data });
  }
  return files;
}

/** Every file of the source, read. */
export async function fetchSource(spec: SourceSpec): Promise<SourceFile[]> {
  if (spec.type === 'local') {
    const root = localPath(spec.url);
    const info = await stat(root).catch(() => null);
    if (!info) throw new SourceError(`The folder ${root} does not exist on this server.`);
    if (!info.isDirectory()) throw new SourceError(`${root} is not a folder.`);
    return readAll(root, spec.ignoreRules);
  }
  if (spec.type === 'git') {
    const work = await mkdtemp(join(tmpdir(), 'netledger-source-'));
    try {
      await cloneGit(spec, join(work, 'repo'));
      return await readAll(join(work, 'repo'), spec.ignoreRules);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  if (spec.type === 'amazon-s3') {
    const { aws_access_key_id: accessKeyId, aws_secret_access_key: secretAccessKey } = spec.parameters;
    // the same files a folder walk would keep: no dot names at any depth, no name an ignore rule matches
    const skip = (path: string) => path.split('/').some((part) => part.startsWith('.') || !part) || matchesAny(path.slice(path.lastIndexOf('/') + 1), spec.ignoreRules);
    try {
      const objects = await fetchS3({ url: spec.url, accessKeyId: accessKeyId ? String(accessKeyId) : undefined, secretAccessKey: secretAccessKey ? String(secretAccessKey) : undefined, skip, maxBytes: MAX_TOTAL_BYTES, timeoutMs: spec.timeoutMs });
      return objects.map(({ path, data }) => ({ path, size: data.length, hash: createHash('sha256').update(data).digest('hex'), data }));
    } catch (error) {
      throw new SourceError((error as Error).message);
    }
  }
  throw new SourceError(`Unknown data source type '${spec.type}'.`);
}
