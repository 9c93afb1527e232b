/**
 * Headless Chromium for the GraphiQL tests: Debian's `chromium` package driven by playwright-core
 * (no downloaded browser). `.ci/run` installs the package when it is missing; without it the browser
 * tests are skipped with a printed reason.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. */
export function chromiumMissingReason(): string | null {
  return existsSync(CHROMIUM_PATH) ? null : `${CHROMIUM_PATH} not found (install Debian's chromium package: apt-get install -y chromium)`;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'graphiql-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 45_000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export interface GraphiqlRun {
  /** Text of the result pane once it contains `expect`. */
  result: string;
  /** Requests that failed or answered ≥ 400 (`METHOD url status`). */
  failedRequests: string[];
  /** Requests to any other origin (there must be none: no CDN). */
  externalRequests: string[];
  /** console.error messages and uncaught page errors (CSP violations show up here). */
  consoleErrors: string[];
}

/** Text of the CodeMirror editor inside `selector`. */
async function editorValue(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (el) => {
    const cm = (el as unknown as { CodeMirror?: { getValue(): string } }).CodeMirror;
    return cm ? cm.getValue() : (el as unknown as { innerText: string }).innerText;
  });
}

/** Replaces the content of a CodeMirror editor by typing into it (as a user would). */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.click(selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  // insertText sends the text as one input event, so editor auto-close of brackets does not double them.
  await page.keyboard.insertText(text);
  const value = await editorValue(page, selector);
  if (value.trim() !== text.trim()) throw new Error(`editor ${selector} holds ${JSON.stringify(value)}, not the typed text`);
}

const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
const RESULT = '.result-window .CodeMirror';

/**
 * Opens `pageUrl` (which must serve GraphiQL), types `query` (and `headers` into the headers editor),
 * runs it with the execute button and waits until the result pane contains `expect`.
 */
export async function runInGraphiql(
  browser: Browser,
  pageUrl: string,
  opts: {
    query: string;
    headers?: string;
    expect: string;
    timeoutMs?: number;
    /** Called right after the execute button is clicked (e.g. to publish an event a subscription waits for). */
    afterRun?: () => Promise<void>;
  },
): Promise<GraphiqlRun> {
  const timeout = opts.timeoutMs ?? 20_000;
  const page = await browser.context.newPage();
  const host = new URL(pageUrl).host; // same host and port (http or ws)
  const failedRequests: string[] = [];
  const externalRequests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).host !== host) externalRequests.push(url);
  });
  page.on('requestfailed', (req) => failedRequests.push(`${req.method()} ${req.url()} ${req.failure()?.errorText ?? 'failed'}`));
  page.on('response', (res) => {
    if (res.status() >= 400) failedRequests.push(`${res.request().method()} ${res.url()} ${res.status()}`);
  });
  try {
    const nav = await page.goto(pageUrl, { waitUntil: 'load', timeout });
    if (!nav || nav.status() !== 200) throw new Error(`GET ${pageUrl} → ${nav?.status()}`);
    const contentType = nav.headers()['content-type'] ?? '';
    if (!contentType.startsWith('text/html')) throw new Error(`GET ${pageUrl} served ${contentType}, not GraphiQL`);
    await page.waitForSelector(QUERY_EDITOR, { timeout });
    await typeInto(page, QUERY_EDITOR, opts.query);
    // GraphiQL parses the edited query (operation name, variables) after a short debounce; a click
    // before that would send the previous operation name.
    await page.waitForTimeout(500);
    if (opts.headers !== undefined) {
      await page.waitForSelector(HEADERS_EDITOR, { timeout });
      await typeInto(page, HEADERS_EDITOR, opts.headers);
    }
    await page.click('.graphiql-execute-button');
    if (opts.afterRun) await opts.afterRun();
    await page.waitForFunction(
      ([selector, expected]) => {
        // runs in the page (tsconfig has no DOM lib, hence the structural types)
        const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
        const el = doc.querySelector(selector) as { CodeMirror?: { getValue(): string } } | null;
        return Boolean(el?.CodeMirror?.getValue().includes(expected));
      },
      [RESULT, opts.expect] as const,
      { timeout },
    );
    const result = await editorValue(page, RESULT);
    return { result, failedRequests, externalRequests, consoleErrors };
  } catch (err) {
    const result = await editorValue(page, RESULT).catch(() => '<no result pane>');
    throw new Error(
      `${(err as Error).message}\nresult pane: ${result}\nfailed requests: ${JSON.stringify(failedRequests)}` +
        `\nconsole errors: ${JSON.stringify(consoleErrors)}`,
      { cause: err },
    );
  } finally {
    await page.close().catch(() => undefined);
  }
}
