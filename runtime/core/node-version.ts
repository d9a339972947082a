/**
 * Imported first by every entry point: on a Node.js older than the project needs, stop with one line
 * before any other module runs. better-sqlite3's native module would otherwise crash the process
 * (a segmentation fault, no message) on Node 20.
 */
const MINIMUM_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);

if (major < MINIMUM_MAJOR) {
  process.stderr.write(`netledger: cannot start: Node.js ${process.versions.node} (${process.execPath}) is too old; NetLedger needs Node.js ${MINIMUM_MAJOR} or newer. Start it with npm start, which runs the Node ${MINIMUM_MAJOR} that npm ci installs into node_modules/.bin, or put Node ${MINIMUM_MAJOR} first on PATH.\n`);
  process.exit(1);
}

export {};
