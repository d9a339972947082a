/**
 * `npm run cli -- webhook-receiver [--port 9000] [--host 127.0.0.1]`: a local listener for debugging
 * webhooks. It prints the headers and body of every request it receives and answers 200; it does
 * nothing else with them.
 */
import { createServer, type Server } from 'node:http';

export interface ReceiverOptions {
  port: number;
  host: string;
  write?: (text: string) => void;
}

export function startReceiver(options: ReceiverOptions): Promise<Server> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const lines = [`[${++count}] ${new Date().toISOString()} ${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      const body = Buffer.concat(chunks).toString('utf8');
      write(`${lines.join('\n')}\n\n${body}${body && !body.endsWith('\n') ? '\n' : ''}${'-'.repeat(72)}\n`);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('Webhook received!\n');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}

/** Parses `--port N` / `--port=N` and `--host H`. */
export function receiverArgs(args: string[]): { port: number; host: string } {
  let port = 9000;
  let host = '127.0.0.1';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] = arg.split('=', 2);
    if (flag !== '--port' && flag !== '--host') throw new Error(`unknown option '${arg}' (use --port N, --host H)`);
    const value = inline ?? args[++i] ?? '';
    if (flag === '--host') host = value || host;
    else if (!/^\d+$/.test(value) || Number(value) > 65535) throw new Error(`--port: expected a port number, got '${value}'`);
    else port = Number(value);
  }
  return { port, host };
}
