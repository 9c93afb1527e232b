/**
 * Customer messages over the wire: the language follows Accept-Language over HTTP, and the connection's
 * (connection_init `acceptLanguage`, else the upgrade request's Accept-Language) over graphql-ws; error messages are
 * the code's customer message with the developer's text in extensions.detail; field errors have one shape,
 * extensions.fields: [{ path, code, message }]; a failed transfer's failure.message follows the language too.
 */
import { randomUUID } from 'node:crypto';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { collect, wsClient } from '../helpers/ws';
import { CATALOGS } from '../../src/shared/messages';
import { waitFor } from '../helpers/wait';
import { bindCheckedCard, createTransfer, newPerson, newQuote, transferInput, waitForStatus } from '../e2e/transfer-helpers';

let t: TestApp;
let alice: string;
let staff: string;

beforeAll(async () => {
  t = await startTestApp({
    SAGA_POLL_INTERVAL_MS: '50',
    SAGA_RETRY_BASE_MS: '50',
    SAGA_RETRY_MAX_MS: '200',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '100000',
  });
  alice = await t.token('alice', 'customer');
  staff = await t.token('bo', 'backoffice');
}, 60_000);
afterAll(() => t.close());

const CREATE_QUOTE = 'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }';
const TRANSFER = 'query($id: ID!) { transfer(id: $id) { id status } }';
/** Both fields refused by class-validator (an unknown currency code and a three-letter country). */
const BAD_QUOTE = { sourceCurrency: 'XXY', destinationCurrency: 'BRL', paymentMethod: 'WALLET', destinationCountry: 'BRA' };

const fieldsOf = (e: { extensions?: Record<string, unknown> } | undefined) =>
  ((e?.extensions?.fields ?? []) as { path: string; code: string; message: string }[]).sort((a, b) => a.path.localeCompare(b.path));

describe('over HTTP, by Accept-Language', () => {
  test.each([
    ['es', 'es'],
    ['pt-BR', 'pt'],
    ['pt-BR,pt;q=0.9,en;q=0.8', 'pt'],
    ['fr-FR', 'en'],
    [undefined, 'en'],
  ] as const)('BAD_USER_INPUT with extensions.fields: Accept-Language %s → %s', async (header, language) => {
    const r = await gql<any>(t.url, CREATE_QUOTE, {
      token: alice,
      variables: { i: BAD_QUOTE },
      headers: header ? { 'accept-language': header } : {},
    });
    const e = r.body.errors?.[0];
    const messages = CATALOGS[language];
    expect(e?.message).toBe(messages.errors.BAD_USER_INPUT);
    expect(e?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(e?.extensions?.detail).toEqual(expect.stringContaining('sourceCurrency'));
    expect(fieldsOf(e)).toEqual([
      { path: 'input.destinationCountry', code: 'INVALID_FORMAT', message: messages.fields.INVALID_FORMAT },
      { path: 'input.sourceCurrency', code: 'INVALID_FORMAT', message: messages.fields.INVALID_FORMAT },
    ]);
    expect(JSON.stringify(r.body)).not.toContain('XXY');
  });

  test.each([
    ['es', 'es'],
    ['pt-BR', 'pt'],
  ] as const)('NOT_FOUND: Accept-Language %s → %s, the code and detail in English', async (header, language) => {
    const r = await gql<any>(t.url, TRANSFER, { token: alice, variables: { id: randomUUID() }, headers: { 'accept-language': header } });
    expect(r.body.errors?.[0]).toMatchObject({
      message: CATALOGS[language].errors.NOT_FOUND,
      extensions: { code: 'NOT_FOUND', detail: 'Transfer not found' },
    });
  });

  test("the service's own field refusal (an amount below the corridor's minimum): the same shape, minAmount where it was", async () => {
    const r = await gql<any>(t.url, CREATE_QUOTE, {
      token: alice,
      variables: { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'WALLET', sourceAmount: '0.50' } },
      headers: { 'accept-language': 'es-MX' },
    });
    const e = r.body.errors?.[0];
    expect(e?.message).toBe(CATALOGS.es.errors.BAD_USER_INPUT);
    expect(e?.extensions?.minAmount).toEqual({ amount: '1.00', currency: 'USD' });
    expect(fieldsOf(e)).toEqual([{ path: 'input.sourceAmount', code: 'BELOW_MINIMUM', message: CATALOGS.es.fields.BELOW_MINIMUM }]);
    expect(JSON.stringify(r.body)).not.toContain('0.50');
  });

  test("a variable's value that does not parse (a Decimal scalar): extensions.fields from the variable's path", async () => {
    const r = await gql<any>(t.url, CREATE_QUOTE, {
      token: alice,
      variables: { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'WALLET', sourceAmount: '1e5' } },
      headers: { 'accept-language': 'pt' },
    });
    const e = r.body.errors?.[0];
    expect(e?.message).toBe(CATALOGS.pt.errors.BAD_USER_INPUT);
    expect(fieldsOf(e)).toEqual([{ path: 'i.sourceAmount', code: 'INVALID_FORMAT', message: CATALOGS.pt.fields.INVALID_FORMAT }]);
    expect(JSON.stringify(r.body)).not.toContain('1e5');
  });
});

describe('over graphql-ws, by the connection', () => {
  async function firstError(opts: Parameters<typeof wsClient>[2], query: string, variables: Record<string, unknown>) {
    const { client } = wsClient(t.wsUrl, alice, opts);
    try {
      const sub = collect<any>(client, query, variables);
      await sub.next(1);
      return (sub.results[0]?.errors ?? (Array.isArray(sub.error) ? sub.error : []))[0];
    } finally {
      await client.dispose();
    }
  }

  test('connection_init acceptLanguage: BAD_USER_INPUT with extensions.fields, and NOT_FOUND', async () => {
    const bad = await firstError({ params: { acceptLanguage: 'es' } }, CREATE_QUOTE, { i: BAD_QUOTE });
    expect(bad?.message).toBe(CATALOGS.es.errors.BAD_USER_INPUT);
    expect(fieldsOf(bad)).toEqual([
      { path: 'input.destinationCountry', code: 'INVALID_FORMAT', message: CATALOGS.es.fields.INVALID_FORMAT },
      { path: 'input.sourceCurrency', code: 'INVALID_FORMAT', message: CATALOGS.es.fields.INVALID_FORMAT },
    ]);
    const missing = await firstError({ params: { acceptLanguage: 'pt-BR' } }, TRANSFER, { id: randomUUID() });
    expect(missing).toMatchObject({ message: CATALOGS.pt.errors.NOT_FOUND, extensions: { code: 'NOT_FOUND' } });
  });

  test("the upgrade request's Accept-Language when connection_init names none; connection_init wins over it", async () => {
    const byHeader = await firstError({ headers: { 'accept-language': 'pt-BR' } }, TRANSFER, { id: randomUUID() });
    expect(byHeader?.message).toBe(CATALOGS.pt.errors.NOT_FOUND);
    const both = await firstError({ headers: { 'accept-language': 'pt-BR' }, params: { acceptLanguage: 'es' } }, TRANSFER, {
      id: randomUUID(),
    });
    expect(both?.message).toBe(CATALOGS.es.errors.NOT_FOUND);
    const neither = await firstError({}, TRANSFER, { id: randomUUID() });
    expect(neither?.message).toBe(CATALOGS.en.errors.NOT_FOUND);
  });

  test("a subscription's error: transferUpdated of an unknown transfer", async () => {
    const e = await firstError({ params: { acceptLanguage: 'es' } }, 'subscription($id: ID!) { transferUpdated(transferId: $id) { id } }', {
      id: randomUUID(),
    });
    expect(e).toMatchObject({ message: CATALOGS.es.errors.NOT_FOUND, extensions: { code: 'NOT_FOUND' } });
  });
});

describe("a failed transfer's failure", () => {
  let personId: string;
  let declinedId: string;
  /** A transfer the sandbox declines: card ending 0004 → DECLINED, PAYMENT_DECLINED. */
  const declined = async () =>
    (
      await createTransfer(
        t.url,
        alice,
        transferInput({ quoteId: await newQuote(t.url, alice), personId, key: `messages-declined-${randomUUID()}`, card: '0004' }),
      )
    ).body.data.createTransfer.id as string;

  beforeAll(async () => {
    personId = await newPerson(t.url, alice);
    await bindCheckedCard(t, 'alice', '0004');
    declinedId = await declined();
    await waitForStatus(t, alice, declinedId, ['DECLINED'], 20_000);
  }, 30_000);

  const FAILURE = 'query($id: ID!) { transfer(id: $id) { status failure { code message detail } } }';

  test.each([
    ['es-MX,es;q=0.9', 'es'],
    ['pt-BR', 'pt'],
    ['en-US', 'en'],
  ] as const)('over HTTP, Accept-Language %s: failure.message in %s; detail only for staff', async (header, language) => {
    const own = await gql<any>(t.url, FAILURE, { token: alice, variables: { id: declinedId }, headers: { 'accept-language': header } });
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data.transfer).toEqual({
      status: 'DECLINED',
      failure: { code: 'PAYMENT_DECLINED', message: CATALOGS[language].failures.PAYMENT_DECLINED, detail: null },
    });
    const bo = await gql<any>(t.url, FAILURE, { token: staff, variables: { id: declinedId }, headers: { 'accept-language': header } });
    expect(bo.body.data.transfer.failure).toEqual({
      code: 'PAYMENT_DECLINED',
      message: CATALOGS[language].failures.PAYMENT_DECLINED,
      detail: expect.stringMatching(/^The payment was declined/),
    });
  });

  test('over graphql-ws: two sockets of one customer, one in Spanish and one in Portuguese, each reads its own — also of one live change', async () => {
    const query = 'subscription($id: ID!) { transferUpdated(transferId: $id) { status failure { code message } } }';
    const views = (results: any[]) => results.map((r) => r.data?.transferUpdated);
    // held AUTHORIZED by the platform's manual review until the owner cancels it: the change is made while both follow it
    const held = (
      await createTransfer(
        t.url,
        alice,
        transferInput({
          quoteId: await newQuote(t.url, alice),
          personId,
          key: `messages-held-${randomUUID()}`,
          lastName: 'Compliance-Review',
        }),
      )
    ).body.data.createTransfer.id as string;
    await waitForStatus(t, alice, held, ['AUTHORIZED'], 20_000);
    const es = wsClient(t.wsUrl, alice, { params: { acceptLanguage: 'es' } });
    const pt = wsClient(t.wsUrl, alice, { headers: { 'accept-language': 'pt-BR' } });
    try {
      const before = [collect<any>(es.client, query, { id: declinedId }), collect<any>(pt.client, query, { id: declinedId })];
      await Promise.all(before.map((s) => s.next(1)));
      expect(views(before[0]!.results)).toEqual([
        { status: 'DECLINED', failure: { code: 'PAYMENT_DECLINED', message: CATALOGS.es.failures.PAYMENT_DECLINED } },
      ]);
      expect(views(before[1]!.results)).toEqual([
        { status: 'DECLINED', failure: { code: 'PAYMENT_DECLINED', message: CATALOGS.pt.failures.PAYMENT_DECLINED } },
      ]);
      // one change both sockets are woken by: its read and its view are shared, its execution is one per language
      const [a, b] = [collect<any>(es.client, query, { id: held }), collect<any>(pt.client, query, { id: held })];
      await Promise.all([a.next(1), b.next(1)]);
      const cancel = await gql<any>(t.url, 'mutation($i: CancelTransferInput!) { cancelTransfer(input: $i) { status } }', {
        token: alice,
        variables: { i: { transferId: held, idempotencyKey: `messages-cancel-${randomUUID()}` } },
      });
      expect(cancel.body.errors).toBeUndefined();
      const voided = (results: any[]) => views(results).find((v) => v?.status === 'VOIDED');
      await waitFor(() => voided(a.results) && voided(b.results), {
        timeoutMs: 20_000,
        intervalMs: 20,
        what: 'both sockets to see VOIDED',
      });
      expect(voided(a.results)).toEqual({
        status: 'VOIDED',
        failure: { code: 'CANCELLED_BY_CUSTOMER', message: CATALOGS.es.failures.CANCELLED_BY_CUSTOMER },
      });
      expect(voided(b.results)).toEqual({
        status: 'VOIDED',
        failure: { code: 'CANCELLED_BY_CUSTOMER', message: CATALOGS.pt.failures.CANCELLED_BY_CUSTOMER },
      });
    } finally {
      await Promise.all([es.client.dispose(), pt.client.dispose()]);
    }
  }, 40_000);
});
