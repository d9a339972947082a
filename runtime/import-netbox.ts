/**
 * `npm run cli -- import-netbox <postgres-url> [--replace] [--dry-run] [--with-changelog] [--media DIR]`: a NetBox database into the
 * database the usual settings name (data/netbox-import.ts), created and migrated first when needed.
 * Prints a summary table per model; on failure one line, and the target is left as it was.
 */
import { loadConfig } from './core/config.js';
import { prepareDatabase } from './data/prepare.js';
import { openNetbox } from './data/netbox-source.js';
import { importNetbox } from './data/netbox-import.js';

const USAGE = 'usage: npm run cli -- import-netbox <postgres-url-of-a-netbox-database> [--replace] [--dry-run] [--with-changelog] [--media <NetBox MEDIA_ROOT>]';

export async function runImportNetbox(given: string[]): Promise<number> {
  // `--media DIR` (or `--media=DIR`): the folder, apart from the other arguments
  const at = given.indexOf('--media');
  const media = at >= 0 ? given[at + 1] : given.find((a) => a.startsWith('--media='))?.slice('--media='.length);
  const args = given.filter((a, i) => !(at >= 0 && (i === at || i === at + 1)) && !a.startsWith('--media='));
  const url = args.find((a) => !a.startsWith('--'));
  const unknown = args.filter((a) => a.startsWith('--') && !['--replace', '--dry-run', '--with-changelog'].includes(a));
  if (!url || unknown.length || (at >= 0 && !media) || media === '') {
    console.error(unknown.length ? `unknown option ${unknown[0]}\n${USAGE}` : USAGE);
    return 2;
  }
  const started = Date.now();
  let source;
  try {
    source = await openNetbox(url);
  } catch (error) {
    console.error(`import-netbox: ${(error as Error).message}`);
    return 1;
  }
  const { db } = await prepareDatabase(loadConfig());
  try {
    const tty = process.stderr.isTTY;
    const summary = await importNetbox(db, source, {
      replace: args.includes('--replace'),
      dryRun: args.includes('--dry-run'),
      withChangelog: args.includes('--with-changelog'),
      media,
      progress: tty ? (line) => process.stderr.write(`\r\x1b[K${line}`) : undefined,
    });
    if (tty) process.stderr.write('\r\x1b[K');
    const rows = summary.filter((s) => s.read || s.reason);
    const width = Math.max(5, ...rows.map((r) => r.model.length));
    console.log(`NetBox ${source.version} ${args.includes('--dry-run') ? '(dry run: nothing written)' : 'imported'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(`${'model'.padEnd(width)}  ${'read'.padStart(8)}  ${'imported'.padStart(8)}  ${'skipped'.padStart(8)}  reason`);
    for (const r of rows) console.log(`${r.model.padEnd(width)}  ${String(r.read).padStart(8)}  ${String(r.imported).padStart(8)}  ${String(r.skipped).padStart(8)}  ${r.reason}`);
    const total = summary.reduce((n, r) => n + r.imported, 0);
    const skipped = summary.reduce((n, r) => n + r.skipped, 0);
    console.log(`${'total'.padEnd(width)}  ${String(summary.reduce((n, r) => n + r.read, 0)).padStart(8)}  ${String(total).padStart(8)}  ${String(skipped).padStart(8)}`);
    return 0;
  } catch (error) {
    console.error(`import-netbox: ${(error as Error).message.split('\n')[0]} (nothing was imported)`);
    return 1;
  } finally {
    await source.close();
    await db.destroy();
  }
}
