/**
 * Account commands of the command line (runtime/cli.ts):
 *
 * - `createsuperuser [--username NAME] [--email ADDRESS] [--password PW] [--no-input]`
 * - `create-token --user NAME [--read-only] [--expires ISO-8601] [--description TEXT] [--version 1|2]`:
 *   prints the new key on stdout, once (the database keeps only its digest); `--version 2` makes a
 *   NetBox 4.5+ v2 token (`nbt_<key>.<secret>`, sent as `Authorization: Bearer`), as NetBox 4.6 lets
 *   its user choose; without it a v1 token (40 hex), which both API versions take
 * - `changepassword NAME [--password PW]`: also ends the user's cookie sessions
 *
 * Missing values are asked for when stdin is a terminal (passwords twice, without echo). Otherwise
 * they must come from flags; createsuperuser also reads the password from NETLEDGER_SUPERUSER_PASSWORD,
 * which, unlike a flag, does not show in the process list. They use the configuration of `npm start`
 * (DATA_DIR, DATABASE_URL, ...) and apply pending migrations first, so they work on a fresh database.
 *
 * Each returns the exit code: 0 done, 1 refused (an unknown or taken user, an invalid value),
 * 2 wrong usage.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { loadConfig } from '../core/config.js';
import { prepareDatabase } from '../data/prepare.js';
import { model } from '../data/registry.js';
import { createObjects, updateObjects, type WriteContext } from '../data/write.js';
import { ApiError } from '../core/errors.js';
import { loadPeppers } from './peppers.js';


/** Wrong usage (exit 2) or a refusal (exit 1), reported as one line on stderr. */
class CommandError extends Error {
  constructor(message: string, readonly code: 1 | 2) {
    super(message);
  }
}

const usage = (message: string) => new CommandError(message, 2);
const refused = (message: string) => new CommandError(message, 1);

function options<T extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], spec: T, positionals = false) {
  try {
    return parseArgs({ args, options: spec, allowPositionals: positionals, strict: true });
  } catch (error) {
    throw usage((error as Error).message);
  }
}

const interactive = (noInput = false) => !noInput && !!process.stdin.isTTY;

/** Asks one question on the terminal; `hidden` does not echo what is typed. */
function ask(question: string, hidden = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    const output = rl as unknown as { _writeToOutput(text: string): void };
    const write = output._writeToOutput.bind(rl);
    let muted = false;
    output._writeToOutput = (text: string) => { if (!muted) write(text); };
    rl.on('SIGINT', () => { rl.close(); process.stdout.write('\n'); reject(refused('interrupted')); });
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stdout.write('\n');
      resolve(answer);
    });
    muted = hidden;
  });
}

/** A new password, typed twice on the terminal. */
async function askNewPassword(): Promise<string> {
  for (;;) {
    const first = await ask('Password: ', true);
    if (!first) { console.error('The password may not be blank.'); continue; }
    const second = await ask('Password (again): ', true);
    if (first === second) return first;
    console.error("The passwords didn't match. Try again.");
  }
}

/** Field errors of a refused write, one line. */
function describe(error: ApiError): string {
  const body = error.body as Record<string, unknown>;
  if (typeof body.detail === 'string') return body.detail;
  return Object.entries(body).map(([field, messages]) => `${field}: ${Array.isArray(messages) ? messages.join(' ') : String(messages)}`).join('; ');
}

/** Opens the configured database with migrations applied, runs `fn`, closes it. */
async function withDatabase<T>(fn: (db: Knex) => Promise<T>): Promise<T> {
  const { db } = await prepareDatabase(loadConfig());
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

/** A write of no API version (every field, the schema's defaults), under the model rules of `rules`. */
async function write<T>(db: Knex, fn: (ctx: WriteContext) => Promise<T>, rules?: WriteContext['rules']): Promise<T> {
  try {
    return await db.transaction((trx) => fn({ db: trx, user: null, now: new Date().toISOString(), requestId: randomUUID(), baseUrl: '', ...(rules ? { rules } : {}) }));
  } catch (error) {
    if (error instanceof ApiError) throw refused(describe(error));
    throw error;
  }
}

async function findUser(db: Knex, username: string): Promise<{ id: number; username: string } | undefined> {
  return db(model('User').definition.table).where('username', username).first('id', 'username');
}

async function createSuperuser(args: string[]): Promise<void> {
  const { values } = options(args, { username: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, 'no-input': { type: 'boolean' } });
  const tty = interactive(values['no-input']);
  let username = values.username;
  if (username === undefined) {
    if (!tty) throw usage('createsuperuser: give --username (stdin is not a terminal)');
    username = (await ask("Username (leave blank to use 'admin'): ")).trim() || 'admin';
  }
  await withDatabase(async (db) => {
    if (await findUser(db, username)) throw refused(`createsuperuser: the username '${username}' is already taken`);
    let email = values.email;
    if (email === undefined) email = tty ? (await ask('Email address (optional): ')).trim() : '';
    if (email && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw usage(`createsuperuser: '${email}' is not an email address`);
    let password = values.password ?? process.env.NETLEDGER_SUPERUSER_PASSWORD;
    if (!password) {
      if (!tty) throw usage('createsuperuser: give the password in NETLEDGER_SUPERUSER_PASSWORD or --password (stdin is not a terminal)');
      password = await askNewPassword();
    }
    const input = { username, password, email, is_superuser: true, is_staff: true, is_active: true, date_joined: new Date().toISOString() };
    await write(db, (ctx) => createObjects(model('User'), [input], false, ctx));
    console.log(`Superuser '${username}' created.`);
  });
}

async function createToken(args: string[]): Promise<void> {
  const { values } = options(args, { user: { type: 'string' }, 'read-only': { type: 'boolean' }, expires: { type: 'string' }, description: { type: 'string' }, version: { type: 'string' } });
  if (!values.user) throw usage('create-token: give --user NAME');
  if (values.version !== undefined && values.version !== '1' && values.version !== '2') throw usage(`create-token: --version '${values.version}' is not 1 or 2`);
  let expires: string | null = null;
  if (values.expires !== undefined) {
    const at = Date.parse(values.expires);
    if (!/^\d{4}-\d{2}-\d{2}/.test(values.expires) || Number.isNaN(at)) throw usage(`create-token: --expires '${values.expires}' is not an ISO 8601 date-time`);
    if (at <= Date.now()) throw refused(`create-token: --expires ${values.expires} is in the past`);
    expires = new Date(at).toISOString();
  }
  await withDatabase(async (db) => {
    const user = await findUser(db, values.user!);
    if (!user) throw refused(`create-token: no user named '${values.user}'`);
    const input = { user: Number(user.id), write_enabled: !values['read-only'], expires, description: values.description ?? 'Created with create-token', ...(values.version ? { version: Number(values.version) } : {}) };
    // v2 digests are keyed with the service's peppers (configured, or the one it generated and keeps)
    const config = loadConfig();
    const rules = values.version === '2' ? { enforceGlobalUnique: config.enforceGlobalUnique, tokenPeppers: await loadPeppers(db, config.apiTokenPeppers) } : undefined;
    const result = await write(db, (ctx) => createObjects(model('Token'), [input], false, ctx), rules);
    // the whole plaintext: a v1 token's 40 hex, a v2 token's nbt_<key>.<secret>
    const key = result.reveal.get(result.ids[0])?.key;
    console.error(`Created ${values.version === '2' ? 'v2 ' : ''}${values['read-only'] ? 'read-only' : 'write-enabled'} token ${result.ids[0]} for '${user.username}'${expires ? `, expiring ${expires}` : ''}. Its key follows; it is shown only this once:`);
    console.log(String(key));
  });
}

async function changePassword(args: string[]): Promise<void> {
  const { values, positionals } = options(args, { password: { type: 'string' } }, true);
  if (positionals.length !== 1) throw usage('changepassword: give exactly one username');
  const username = positionals[0];
  await withDatabase(async (db) => {
    const user = await findUser(db, username);
    if (!user) throw refused(`changepassword: no user named '${username}'`);
    let password = values.password;
    if (!password) {
      if (values.password === '') throw refused('changepassword: the password may not be blank');
      if (!interactive()) throw usage('changepassword: give --password (stdin is not a terminal)');
      console.log(`Changing the password of '${username}'.`);
      password = await askNewPassword();
    }
    await write(db, (ctx) => updateObjects(model('User'), [{ id: Number(user.id), password }], true, false, ctx));
    console.log(`Password changed for '${username}'. Their browser sessions have ended; their API tokens still work.`);
  });
}

export const accountCommands: Record<string, { usage: string; run(args: string[]): Promise<void> }> = {
  createsuperuser: {
    usage: 'createsuperuser [--username NAME] [--email ADDRESS] [--password PW] [--no-input]\n            create a superuser; asks for what is missing on a terminal\n            (the password may also come from NETLEDGER_SUPERUSER_PASSWORD)',
    run: createSuperuser,
  },
  'create-token': {
    usage: 'create-token --user NAME [--read-only] [--expires ISO-8601] [--description TEXT] [--version 1|2]\n            create an API token and print its key (shown only once); --version 2: a v2 token (nbt_...)',
    run: createToken,
  },
  changepassword: {
    usage: 'changepassword NAME [--password PW]\n            set a user\'s password; asks twice on a terminal',
    run: changePassword,
  },
};

/** Runs an account command; returns the exit code. */
export async function runAccountCommand(command: string, args: string[]): Promise<number> {
  try {
    await accountCommands[command].run(args);
    return 0;
  } catch (error) {
    if (error instanceof CommandError) {
      console.error(error.message);
      return error.code;
    }
    throw error;
  }
}
