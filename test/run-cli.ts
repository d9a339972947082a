/** `npm run cli -- <args>` as a child process from the sources (tsx), with its exit code and output. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const nodeBin = existsSync(join(root, 'node_modules/.bin/node')) ? join(root, 'node_modules/.bin/node') : process.execPath;

export interface CliRun { code: number | null; stdout: string; stderr: string }

/** Runs the CLI with only PATH and HOME from this process beside `env`; killed after `timeoutMs`. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(nodeBin, ['--import', 'tsx', join(root, 'runtime/cli.ts'), ...args], { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`cli ${args[0]} did not finish: ${stdout} ${stderr}`)); }, timeoutMs);
    child.on('close', (code) => { clearTimeout(timer); resolveRun({ code, stdout, stderr }); });
  });
}
