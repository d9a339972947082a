/** Child processes for tests and benches: any command with its exit code and output, and `npm run cli -- <args>` from the sources (tsx). */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const nodeBin = existsSync(join(root, 'node_modules/.bin/node')) ? join(root, 'node_modules/.bin/node') : process.execPath;

export interface CliRun { code: number | null; stdout: string; stderr: string }

/** Runs `command` in the repository's root with `env` as its whole environment; killed after `timeoutMs`. */
export function runProcess(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${command} ${args[0] ?? ''} did not finish: ${stdout} ${stderr}`)); }, timeoutMs);
    child.on('error', (error) => { clearTimeout(timer); reject(error); });
    child.on('close', (code) => { clearTimeout(timer); resolveRun({ code, stdout, stderr }); });
  });
}

/** Runs the CLI with only PATH and HOME from this process beside `env`. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliRun> {
  return runProcess(nodeBin, ['--import', 'tsx', join(root, 'runtime/cli.ts'), ...args], { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeoutMs);
}
