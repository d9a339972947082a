/**
 * Running client scenario scripts as uvu tests (test/clients.test.ts, test/clients-46.test.ts): the
 * child processes, and the ok/FAIL/pending lines each check of a script prints (each folder's _harness.py).
 * A script is first listed (NETLEDGER_LIST_CHECKS=1 prints `check <name>` without touching a server),
 * so each check is declared as one uvu test; then the script runs once and every line settles its test.
 */
import { spawn, spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import type { suite } from 'uvu';
import { engine } from './helpers.js';

const SCRIPT_TIMEOUT_MS = Number(process.env.CLIENT_TIMEOUT || 600) * 1000;

export type Suite = ReturnType<typeof suite>;

export interface Run {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  seconds: number;
}

/** Runs a command in `cwd`, in its own process group; stops the whole group on timeout. */
export function run(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = SCRIPT_TIMEOUT_MS): Promise<Run> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (c) => { stdout += c.toString('utf8'); });
    child.stderr.on('data', (c) => { stderr += c.toString('utf8'); });
    const kill = (signal: NodeJS.Signals) => { try { process.kill(-child.pid!, signal); } catch { /* gone */ } };
    const timer = setTimeout(() => { timedOut = true; kill('SIGTERM'); setTimeout(() => kill('SIGKILL'), 3000).unref(); }, timeoutMs);
    const finish = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, seconds: (performance.now() - started) / 1000 });
    };
    child.on('error', (err) => { stderr += `\n${err.message}`; finish(127, null); });
    child.on('close', (code, signal) => finish(code, signal));
  });
}

export function tail(text: string, chars = 1500): string {
  const t = text.trim();
  return t.length <= chars ? t : `...${t.slice(-chars)}`;
}

export function describeExit(r: Run): string {
  if (r.timedOut) return `timed out after ${r.seconds.toFixed(0)} s`;
  return r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`;
}
export function probe(command: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim() };
}

interface CheckLine { status: 'ok' | 'FAIL' | 'pending'; name: string; reason: string }

/**
 * Parses the ok/FAIL/pending lines. A name may contain ": ", so a FAIL or pending line is matched against
 * the declared names first (the longest that fits), and split at its first ": " only otherwise.
 */
function parseLines(stdout: string, known: string[]): CheckLine[] {
  const out: CheckLine[] = [];
  const byLength = [...known].sort((a, b) => b.length - a.length);
  for (const raw of stdout.split('\n')) {
    const line = raw.trimEnd();
    const m = /^(ok|FAIL|pending) (.*)$/.exec(line);
    if (!m) continue;
    const status = m[1] as CheckLine['status'];
    const rest = m[2];
    if (status === 'ok') { out.push({ status, name: rest, reason: '' }); continue; }
    const name = byLength.find((n) => rest === n || rest.startsWith(`${n}: `)) ?? (rest.includes(': ') ? rest.slice(0, rest.indexOf(': ')) : rest);
    out.push({ status, name, reason: rest.slice(name.length + 2) });
  }
  return out;
}

/** The check names a script declares (NETLEDGER_LIST_CHECKS=1), or the reason they could not be listed. */
export function listChecks(python: string, script: string, args: string[], env: Record<string, string> = {}): { names: string[]; pending: string[]; error: string | null } {
  const r = spawnSync(python, [script, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env, NETLEDGER_LIST_CHECKS: '1', PYTHONDONTWRITEBYTECODE: '1', NETLEDGER_URL: 'http://127.0.0.1:9' },
  });
  const lines = (r.stdout ?? '').split('\n').map((l) => l.trimEnd());
  const names = lines.filter((l) => l.startsWith('check ')).map((l) => l.slice(6));
  const pending = lines.filter((l) => l.startsWith('pending-check ')).map((l) => l.slice(14));
  if (r.status !== 0) return { names, pending, error: `listing the checks of ${basename(script)} failed (${r.status}): ${tail(`${r.stdout}\n${r.stderr}`)}` };
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) return { names, pending, error: `${basename(script)} declares the check ${JSON.stringify(dup)} twice` };
  return { names, pending, error: null };
}

/**
 * Declares one test per check of a script, all settled by one run of it (started by the first test),
 * plus one test that the script exited cleanly (no crash, no time-out, no undeclared check).
 */
export function checkTests(test: Suite, label: string, listed: { names: string[]; pending: string[] }, execute: () => Promise<Run>): void {
  const { names } = listed;
  let once: Promise<{ run: Run; lines: Map<string, CheckLine> }> | null = null;
  const outcome = () => (once ??= execute().then((r) => {
    const lines = new Map<string, CheckLine>();
    for (const line of parseLines(r.stdout, [...names, ...listed.pending])) {
      lines.set(line.name, line);
      if (line.status === 'pending') console.log(`\n  pending [${engine}] ${label}: ${line.name}: ${line.reason}`);
    }
    return { run: r, lines };
  }));
  for (const name of names) {
    test(name, async () => {
      const { run: r, lines } = await outcome();
      const line = lines.get(name);
      if (!line) throw new Error(`${label} printed no line for this check (${describeExit(r)}). stderr: ${tail(r.stderr) || '(empty)'}; stdout: ${tail(r.stdout, 600)}`);
      if (line.status === 'FAIL') throw new Error(line.reason);
      if (line.status !== 'ok') throw new Error(`reported ${line.status}: ${line.reason}`);
    });
  }
  test(`${label} exits cleanly`, async () => {
    const { run: r, lines } = await outcome();
    const failed = [...lines.values()].some((l) => l.status === 'FAIL');
    const undeclared = [...lines.values()].filter((l) => l.status !== 'pending' && !names.includes(l.name)).map((l) => l.name);
    const problems: string[] = [];
    if (r.timedOut || r.signal) problems.push(describeExit(r));
    else if (r.code !== (failed ? 1 : 0)) problems.push(`${describeExit(r)} (expected ${failed ? 1 : 0})`);
    if (undeclared.length) problems.push(`undeclared checks: ${undeclared.join(', ')}`);
    if (/Traceback \(most recent call last\)/.test(r.stderr)) problems.push('a Python traceback on stderr');
    if (problems.length) throw new Error(`${problems.join('; ')}. stderr: ${tail(r.stderr) || '(empty)'}`);
  });
}
