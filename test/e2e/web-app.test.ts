/**
 * The reference web app (examples/web-app: Vite, urql, graphql-ws) in headless Chromium against the service in
 * TRUSTED_DOCUMENTS=only: quote (and a refusal shown with its message and code) → KYC → a card that asks for 3-D
 * Secure (the sandbox's challenge page, its Authenticate button, back to the app) → confirm → the live status over
 * graphql-ws until COMPLETED (the sandbox's webhooks complete it on their own) → the receipt. Every GraphQL answer
 * the page got is read too: nothing was refused as an unknown document.
 *
 * The example is built as an app team builds it: its own `npm ci` (once per package-lock.json, 5–10 s; skipped
 * with a warning when that install fails, e.g. no registry) and `npm run build` (tsc + vite build, ~7 s), then served by
 * `vite preview`, which proxies /graphql (HTTP and websocket) to the service (the service sends no CORS headers: the
 * app and the API share one origin). Screenshots of every screen go to test-artifacts/web-app/ (git-ignored).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { personInput, RECIPIENT } from '../helpers/funding';
import { cardToken } from '../helpers/sandbox';
import { chromiumMissingReason, openBrowser, type Browser } from './graphiql.browser';

const REPO = join(__dirname, '..', '..');
const EXAMPLE = join(REPO, 'examples', 'web-app');
const ARTIFACTS = join(REPO, 'test-artifacts', 'web-app');
const STAMP = join(EXAMPLE, 'node_modules', '.installed-lock-sha256');

/**
 * The example's node_modules for its package-lock.json: `npm ci` unless the last install was of this very lock.
 * Returns why the example cannot be installed (no registry), or null.
 */
function installExample(): string | null {
  const lock = createHash('sha256')
    .update(readFileSync(join(EXAMPLE, 'package-lock.json')))
    .digest('hex');
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === lock && existsSync(join(EXAMPLE, 'node_modules', 'vite', 'package.json')))
    return null;
  const started = Date.now();
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: EXAMPLE,
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, NPM_CONFIG_UPDATE_NOTIFIER: 'false' },
  });
  if (r.status !== 0) {
    const said = (r.stderr || r.stdout || '')
      .split('\n')
      .map((l) => l.replace(/^npm error\s*/, '').trim())
      .filter(Boolean)
      .slice(0, 4);
    return `npm ci in examples/web-app failed (${r.error?.message ?? `exit ${r.status}`}): ${said.join(' | ')}`;
  }
  writeFileSync(STAMP, lock);
  console.log(`[web-app.test] npm ci in examples/web-app took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return null;
}

const skipReason = chromiumMissingReason() ?? installExample();
if (skipReason) console.warn(`[web-app.test] skipping the reference web app test: ${skipReason}`);

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A command in examples/web-app; rejects with its output when it fails. */
function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: EXAMPLE, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} → exit ${code}\n${out}`))));
  });
}

/** `vite preview` of the built app on a free port, proxying /graphql to the service. */
async function preview(bffUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(EXAMPLE, 'node_modules', 'vite', 'bin', 'vite.js'), 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd: EXAMPLE, env: { ...process.env, BFF_URL: bffUrl }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`vite preview exited ${child.exitCode}: ${out}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, child };
    if (i > 150) throw new Error(`vite preview did not answer within 15 s: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whole cents of "123.45 USD". */
const cents = (text: string) => {
  const m = /^(\d+)\.(\d{2}) USD$/.exec(text.trim());
  if (!m) throw new Error(`not a USD amount: ${JSON.stringify(text)}`);
  return Number(m[1]) * 100 + Number(m[2]);
};

(skipReason ? describe.skip : describe)('reference web app (examples/web-app) in headless Chromium', () => {
  let t: TestApp;
  let app: { url: string; child: ChildProcess };
  let browser: Browser;
  const timings: string[] = [];

  beforeAll(async () => {
    rmSync(ARTIFACTS, { recursive: true, force: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    let t0 = Date.now();
    const took = <T>(what: string, p: Promise<T>) => p.then((v) => (timings.push(`${what} ${Date.now() - t0} ms`), v));
    // side by side: the example's build, the service and the browser. The 3-D Secure return URL is the app's page on
    // 127.0.0.1: a loopback address passes outside production without THREE_DS_RETURN_URL_HOSTS (in production the
    // app's host must be listed there).
    const [built, service, chromium] = await Promise.allSettled([
      took('build', run('npm', ['run', '--silent', 'build'])), // tsc --noEmit && vite build → dist/
      took(
        'service',
        startTestApp({
          TRUSTED_DOCUMENTS: 'only',
          WEBHOOK_POLL_INTERVAL_MS: '50',
          SAGA_POLL_INTERVAL_MS: '50',
          SAGA_RETRY_BASE_MS: '50',
          SAGA_RETRY_MAX_MS: '200',
          LOG_LEVEL: 'warn',
        }),
      ),
      took('browser', openBrowser()),
    ]);
    if (service.status === 'fulfilled') t = service.value;
    if (chromium.status === 'fulfilled') browser = chromium.value;
    for (const r of [built, service, chromium]) if (r.status === 'rejected') throw r.reason;
    t0 = Date.now();
    app = await took('preview', preview(t.url));
  }, 180_000);

  afterAll(async () => {
    if (app && app.child.exitCode === null) {
      const exited = new Promise((resolve) => app.child.once('exit', resolve));
      app.child.kill();
      await exited;
    }
    await browser?.close();
    await t?.close();
    if (timings.length) console.log(`[web-app.test] ${timings.join(', ')}`);
  });

  /** A new tab of the app as `sub`, with what it sees: GraphQL error codes (HTTP and websocket), page errors, sockets. */
  async function openApp(sub: string) {
    const page: Page = await browser.context.newPage();
    const seen = { codes: [] as string[], pageErrors: [] as string[], sockets: [] as string[] };
    type Errors = { extensions?: { code?: string } }[] | undefined;
    const collect = (body: string) => {
      let msg: { errors?: Errors; payload?: { errors?: Errors } | Errors };
      try {
        msg = JSON.parse(body);
      } catch {
        return; // not JSON
      }
      // HTTP: { errors }; graphql-ws: next { payload: { errors } }, error { payload: [errors] }
      const errors = msg.errors ?? (Array.isArray(msg.payload) ? msg.payload : msg.payload?.errors) ?? [];
      seen.codes.push(...errors.map((e) => String(e.extensions?.code)));
    };
    page.on('pageerror', (e) => seen.pageErrors.push(e.message));
    page.on('response', (res) => {
      if (new URL(res.url()).pathname === '/graphql') void res.text().then(collect, () => undefined);
    });
    page.on('websocket', (ws) => {
      seen.sockets.push(ws.url());
      ws.on('framereceived', (f) => typeof f.payload === 'string' && collect(f.payload));
    });
    await page.goto(`${app.url}/?token=${encodeURIComponent(await t.token(sub, 'customer'))}`);
    expect(page.url()).not.toContain('token='); // kept in sessionStorage, not in the address bar
    const text = async (selector: string) => (await page.locator(selector).textContent())?.trim() ?? '';
    const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    return { page, seen, text, shot };
  }
  type AppTab = Awaited<ReturnType<typeof openApp>>;

  /** The quote screen for 100.00 USD: its figures, checked against one another. */
  async function quoteStep({ page, text }: AppTab) {
    await page.fill('#f-amount', '100.00');
    await page.click('#get-quote');
    await page.waitForSelector('#quote-fee');
    const quote = {
      source: await text('#quote-source'),
      fee: await text('#quote-fee'),
      total: await text('#quote-total'),
      destination: await text('#quote-destination'),
    };
    expect(quote.source).toBe('100.00 USD');
    expect(cents(quote.fee)).toBeGreaterThan(0);
    expect(cents(quote.total)).toBe(cents(quote.source) + cents(quote.fee)); // total = source + fee, exactly
    expect(await text('#quote-rate')).toMatch(/^1 USD = \d+(\.\d+)? BRL$/);
    expect(quote.destination).toMatch(/^\d+\.\d{2} BRL$/);
    expect(await text('#quote-delivery')).toMatch(/\d.* – .*\d/);
    expect(await page.locator('#error').count()).toBe(0);
    return quote;
  }

  /** The KYC form filled with the sandbox's approved person (shot `name` before sending), then the card screen. */
  async function kycStep({ page, text, shot }: AppTab, name?: string) {
    await page.click('#quote-continue');
    await page.waitForSelector('#screen-kyc');
    const person = personInput();
    const { firstName, lastName, email, phoneNumber, identification, address } = person;
    for (const [id, value] of Object.entries({ firstName, lastName, email, phoneNumber, identification, ...address }))
      await page.fill(`#f-${id}`, value);
    await page.selectOption('#f-identificationType', person.identificationType);
    if (name) await shot(name);
    await page.click('#kyc-submit');
    await page.waitForSelector('#screen-card');
    expect(await text('#card-sender')).toContain('Jane Doe');
  }

  /** The card check of `card` (ending 0002): CHALLENGE. */
  async function challengedCard({ page, text }: AppTab, card: string) {
    await page.fill('#f-cardToken', card);
    await page.click('#check-card');
    await page.waitForSelector('#card-status[data-status="CHALLENGE"]');
    expect(await text('#card-status')).toContain('ending 0002');
  }

  /** On the issuer's 3-D Secure page (sandbox): the cardholder authenticates and the page sends the browser back. */
  async function authenticate({ page, shot }: AppTab, name?: string) {
    await page.waitForURL((u) => u.pathname.startsWith('/gateway/3ds/'));
    expect(await page.textContent('body')).toContain('card ending 0002');
    if (name) await shot(name);
    await page.click('button:has-text("Authenticate")');
    await page.waitForURL((u) => u.origin === app.url);
  }

  /** The confirm screen: the quote's figures, the recipient typed in (shot `name` before sending), then sent. */
  async function confirmStep({ page, text, shot }: AppTab, quote: { fee: string; total: string }, name?: string) {
    await page.waitForSelector('#screen-confirm');
    expect(await text('#confirm-fee')).toBe(quote.fee);
    expect(await text('#confirm-total')).toBe(quote.total);
    const r = RECIPIENT;
    for (const [id, value] of Object.entries({
      recipientFirstName: r.customer.firstName,
      recipientLastName: r.customer.lastName,
      pixKey: r.destination.pixKey,
      recipientLine1: r.address.line1,
      recipientCity: r.address.city,
      recipientRegion: r.address.region,
      recipientRegionCode: r.address.regionCode,
      recipientPostalCode: r.address.postalCode,
    }))
      await page.fill(`#f-${id}`, value);
    expect(await text('#send')).toBe(`Send ${quote.total}`);
    if (name) await shot(name);
    await page.click('#send');
    await page.waitForSelector('#screen-status');
  }

  /** The statuses the status screen listed, once it shows COMPLETED. */
  async function completed({ page }: AppTab): Promise<string[]> {
    await page.waitForSelector('#status[data-status="COMPLETED"]', { timeout: 45_000 });
    const seen = await page.locator('#timeline li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-status') ?? ''));
    expect(seen.at(-1)).toBe('COMPLETED');
    return seen;
  }

  /** The receipt screen: its reference and figures, those of the quote. */
  async function receiptStep({ page, text }: AppTab, quote: { source: string; fee: string; total: string; destination: string }) {
    await page.click('#to-receipt');
    await page.waitForSelector('#receipt-reference');
    expect(await text('#receipt-reference')).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(await text('#receipt-status')).toBe('COMPLETED');
    expect(await text('#receipt-send')).toBe(quote.source);
    expect(await text('#receipt-fee')).toBe(quote.fee);
    expect(await text('#receipt-total')).toBe(quote.total);
    expect(await text('#receipt-receive')).toBe(quote.destination);
    expect(await text('#receipt-sender')).toBe('Jane Doe');
    expect(await text('#receipt-recipient')).toMatch(/^Maria .*PIX/);
    expect(await text('#receipt-funding')).toBe('CARD ending 0002');
    expect(await text('#receipt-delivery')).toMatch(/\d.* – .*\d/);
    expect(await text('#receipt-cancellable')).not.toBe('');
    expect(await text('#receipt-support')).toMatch(/^Help: \S/);
  }

  test('quote → KYC → card with 3-D Secure → confirm → live status to COMPLETED → receipt', async () => {
    const started = Date.now();
    const tab = await openApp('web-app-user');
    const { page, seen, text, shot } = tab;

    // 1. quote: a refusal first, shown with its message and code; then the quote's figures
    await page.fill('#f-amount', '0');
    await page.click('#get-quote');
    await page.waitForSelector('#error');
    expect(await text('#error-code')).toBe('BAD_USER_INPUT');
    expect(await text('#error-message')).toMatch(/\w{3,}/);
    await shot('01-quote-error');
    const quote = await quoteStep(tab);
    await shot('02-quote');

    // 2. KYC
    await kycStep(tab, '03-kyc');

    // 3. card: ending 0002 asks for 3-D Secure; the challenge page sends the browser back; the same check approves
    await challengedCard(tab, cardToken('0002', 'abcdabcd-0000-4000-8000'));
    await shot('04-card-challenge');
    await page.click('#card-authenticate');
    await authenticate(tab, '05-3ds-challenge-page');
    await page.waitForSelector('#card-status[data-status="APPROVED"]');
    expect(await text('#card-status')).toContain('Card ending 0002 is approved');
    expect(page.url()).not.toContain('threeds='); // the return marker is consumed
    await shot('06-card-approved');
    await page.click('#card-continue');

    // 4. confirm
    await page.waitForSelector('#screen-confirm');
    expect(await text('#confirm-card')).toBe('Card ending 0002');
    await confirmStep(tab, quote, '07-confirm');

    // 5. live status over graphql-ws until COMPLETED (the sandbox's webhooks drive it)
    const statuses = await completed(tab);
    expect(statuses.length).toBeGreaterThanOrEqual(2); // updates arrived while the page watched
    // in the card path's order, none twice (the stream's messages)
    const order = statuses.map((s) => ['PENDING', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED'].indexOf(s));
    expect(order).not.toContain(-1);
    expect(order).toEqual([...new Set(order)].sort((a, b) => a - b));
    expect(seen.sockets).toEqual([`${app.url.replace('http', 'ws')}/graphql`]);
    await shot('08-status-completed');

    // 6. receipt
    await receiptStep(tab, quote);
    await shot('09-receipt');

    // only mode ran every document the app sent: the one refusal is the quote's, nothing was an unknown document
    expect(seen.codes).toEqual(['BAD_USER_INPUT']);
    expect(seen.pageErrors).toEqual([]);
    timings.push(`journey ${Date.now() - started} ms`);
    await page.close();
  }, 120_000);

  test('3-D Secure when paying: ACTION_REQUIRED, a return before authenticating is refused (INVALID_STATE), then resumeTransfer → COMPLETED', async () => {
    const started = Date.now();
    const tab = await openApp('web-app-3ds-at-payment');
    const { page, seen, text, shot } = tab;
    const quote = await quoteStep(tab);
    await kycStep(tab);
    await challengedCard(tab, cardToken('0002', 'abcdabcd-0000-4000-8001'));
    await page.click('#card-later'); // the card is checked; the bank asks when the transfer pays
    await page.waitForSelector('#screen-confirm');
    expect(await text('#confirm-card')).toBe('Card ending 0002 (your bank will ask you to confirm)');
    await confirmStep(tab, quote);

    await page.waitForSelector('#status[data-status="ACTION_REQUIRED"] ~ #status-detail #transfer-authenticate');
    await shot('10-status-action-required');
    // back on the return URL without having authenticated: the app resumes, the service refuses, the app says why
    await page.goto(`${app.url}/?threeds=transfer`);
    await page.waitForSelector('#error');
    expect(await text('#error-code')).toBe('INVALID_STATE');
    expect(await page.getAttribute('#error', 'data-reason')).toBe('CHALLENGE_NOT_COMPLETED');
    await page.waitForSelector('#challenge-hint');
    expect(await text('#error-message')).toMatch(/\w{3,}/);
    await page.waitForSelector('#transfer-authenticate'); // still waiting for the bank
    await shot('11-status-resume-refused');

    await page.click('#transfer-authenticate');
    await authenticate(tab);
    const statuses = await completed(tab); // ResumeTransfer, then the stream again
    const order = statuses.map((s) => ['PENDING', 'ACTION_REQUIRED', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED'].indexOf(s));
    expect(order).not.toContain(-1);
    expect(statuses).toContain('ACTION_REQUIRED');
    expect(statuses.indexOf('ACTION_REQUIRED')).toBeLessThan(statuses.indexOf('COMPLETED'));
    await shot('12-status-completed-after-3ds');
    await receiptStep(tab, quote);

    expect(seen.codes).toEqual(['INVALID_STATE']);
    expect(seen.pageErrors).toEqual([]);
    timings.push(`3-D Secure at payment ${Date.now() - started} ms`);
    await page.close();
  }, 120_000);
});
