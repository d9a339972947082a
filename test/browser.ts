/**
 * A real Chromium for the web-interface tests: Debian's `chromium` (installed by .ci/run) driven by
 * playwright-core, headless, with a fresh profile per file. One browser per test file keeps CI time
 * reasonable; each test opens its own context (its own cookies) when it needs another user.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import * as assert from 'uvu/assert';
import { suite, type Test } from 'uvu';
import { startApp, type TestApp } from './helpers.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const ADMIN = { username: 'admin', password: 'admin-password-for-tests' };

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Starts Chromium with a fresh --user-data-dir (a persistent context is how playwright takes one). */
export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'netledger-chromium-'));
  // every page reduced motion: axe would otherwise read a button's colours mid-transition
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  // a loaded CI machine may take its time; nothing here is timed
  context.setDefaultTimeout(60_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  // A script error, or a resource the Content-Security-Policy refused, fails the test that caused it.
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && /Content Security Policy|Refused/.test(m.text())) errors.push(m.text()); });
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      assert.equal(errors, [], 'no script error and no CSP violation');
    },
  };
}

export async function login(page: Page, base: string, who = ADMIN, next = '/'): Promise<void> {
  await page.goto(`${base}/login/?next=${encodeURIComponent(next)}`);
  await page.fill('#username', who.username);
  await page.fill('#password', who.password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login/')), page.click('button[type=submit]')]);
}

/** axe-core on the current page: no serious or critical violation. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')})`), [], `accessibility of ${what}`);
}

export interface BrowserApp { app: TestApp; browser: Browser; base: string }

/**
 * A suite over a fresh app and a Chromium: `setUp` fills the app (and logs in) before the tests,
 * both stop after them. `s` holds the app, the browser and the base URL once the tests run.
 */
export function browserSuite(name: string, setUp: (s: BrowserApp) => Promise<void>, env: Record<string, string> = { RUN_WORKER: '0' }): { test: Test; s: BrowserApp } {
  const test = suite(name);
  const s = {} as BrowserApp;
  test.before(async () => {
    try {
      s.app = await startApp(env);
      s.base = s.app.url;
      s.browser = await openBrowser();
      await setUp(s);
    } catch (e) { console.error('SETUP', e); throw e; }
  });
  test.after(async () => {
    await s.browser?.close();
    await s.app?.stop();
  });
  return { test, s };
}

/** A full-page screenshot, checked to be a rendered page; with UPDATE_SCREENSHOTS=1 written to docs/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const png = await page.screenshot({ fullPage: true });
  assert.ok(png.length > 10_000, 'a rendered page, not a blank one');
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  const dir = join(import.meta.dirname, '../docs/screenshots');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.png`), png);
}
