/**
 * A nullable GraphQL argument may come as an explicit null: that is the same request as leaving it out, and the
 * gateway — whose request fields are optional, never nullable — must not be sent a null for it.
 *
 * The gateway here is a stand-in that keeps each request body: the sandbox reads a null member as a missing one and
 * does not record request bodies, so it cannot show what was sent. What the client gets end to end is covered
 * against the sandbox in quote-kyc-checks.test.ts.
 */
import { FxService } from '../../src/modules/fx/fx.service';
import { FxV1Service } from '../../src/modules/fxv1/fxv1.service';
import { KycService } from '../../src/modules/kyc/kyc.service';
import { ManualClock } from '../../src/shared/clock';
import type { GatewayClient } from '../../src/upstream/gateway/gateway.client';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

/** Paths of the members of `v` that are null (none: []). */
const nullMembers = (v: unknown, at = ''): string[] =>
  v !== null && typeof v === 'object'
    ? Object.entries(v).flatMap(([k, x]) => (x === null ? [`${at}${k}`] : nullMembers(x, `${at}${k}.`)))
    : [];

const sent: Record<string, unknown>[] = [];
/** A request body as the JSON sent carries it (undefined members left out). */
const record = (req: Record<string, unknown>) => sent.push(JSON.parse(JSON.stringify(req)) as Record<string, unknown>);
const gateway = {
  async validatePerson(req: Record<string, unknown>) {
    record(req);
    return { status: 'APPROVED' };
  },
  async createPerson(req: Record<string, unknown>) {
    record(req);
    return { status: 'APPROVED', id: 'gw-person-1' };
  },
  async createFxQuote(req: Record<string, unknown>) {
    record(req);
    return { fxId: 'fx-1', conversionRate: 5.25, quoteIdExpiryDateTime: '2030-01-01T00:00:00.000Z' };
  },
  async createFxQuoteV1(req: Record<string, unknown>) {
    record(req);
    return { fxId: 'fx-2', conversionRate: 5.25, quoteIdExpiryDateTime: '2030-01-01T00:00:00.000Z' };
  },
} as unknown as GatewayClient;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());
beforeEach(() => {
  sent.length = 0;
});

test('validatePerson and createPerson: the nullable person fields given as null are not sent', async () => {
  const kyc = new KycService(db.prisma, db.sql, gateway, new ManualClock());
  const args = {
    type: 'INDIVIDUAL' as const,
    firstName: 'Ana',
    lastName: 'Silva',
    companyName: null,
    identificationType: null,
    identification: null,
    gender: null,
    email: null,
    phoneNumber: null,
    address: null,
  };
  await kyc.validatePerson(args);
  const made = await kyc.createPerson('alice', args);
  expect(made).toMatchObject({ status: 'APPROVED', id: expect.any(String) });
  expect(sent).toHaveLength(2);
  for (const body of sent) {
    expect(nullMembers(body)).toEqual([]);
    expect(body).toMatchObject({ type: 'INDIVIDUAL', firstName: 'Ana', lastName: 'Silva' });
  }
});

test('createQuote: sourceAmount and destinationCountry given as null are not sent, and stored as absent', async () => {
  const fx = new FxService(db.sql, gateway, new ManualClock(), [], { fees: [], rounding: 'HALF_UP', delivery: [] });
  const q = await fx.createQuote('alice', {
    sourceCurrency: 'USD',
    destinationCurrency: 'BRL',
    paymentMethod: 'CARD',
    sourceAmount: null,
    destinationCountry: null,
  });
  expect(nullMembers(sent[0])).toEqual([]);
  expect(sent[0]).not.toHaveProperty('destinationCountryCode');
  expect(sent[0]).not.toHaveProperty('sourceCurrencyAmount');
  expect(q.source).toBeNull();
  const row = await db.prisma.quote.findUniqueOrThrow({ where: { id: q.id } });
  expect(row).toMatchObject({ sourceAmount: null, destinationCountry: null, ownerId: 'alice' });
});

test('fxQuoteV1: currencies given as null are not sent (the gateway picks its default corridor)', async () => {
  const q = await new FxV1Service(gateway).quote(null, null);
  expect(nullMembers(sent[0])).toEqual([]);
  expect(q).toMatchObject({ sourceCurrency: null, destinationCurrency: null });
});
