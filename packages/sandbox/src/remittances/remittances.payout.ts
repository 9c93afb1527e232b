/**
 * The rest of the platform's surface, minimal (shapes "not shown" upstream; sandbox decisions):
 *
 * Tenant auth
 * - GET /addresses/check?line1=&line2=&city=&state=&postalCode=&country= → 200 { valid, problems: [field…],
 *   normalized: { line1, line2, city, state, postalCode, country } } (valid when line1, city and a 2-letter
 *   country are present).
 * Agent auth
 * - POST /payout/quotes { sourceCurrency, destinationCurrency, sourceAmount | destinationAmount (decimal
 *   strings), destinationCountry? } → 201 { quoteId, sourceCurrency, destinationCurrency, sourceAmount,
 *   destinationAmount, rate, fee, expiresAt } (decimal strings; expiry = options.quoteLifetimeS, sandbox clock).
 *   Unknown corridor → 400 UNSUPPORTED_CORRIDOR.
 * - POST /payout/participants/{id}/fundingAccounts { type: CARD | BANK_ACCOUNT, cardTokenId? | accountNumber? }
 *   → 201 { id, participantId, type, status: ACTIVE, last4, createdAt }; unknown participant → 404.
 * - POST /payout/participants/{id}/recipientAccounts/gateway { ...any recipient details } → 201 { id,
 *   participantId, provider: "gateway", status: ACTIVE, details, createdAt }.
 * - Reference data: GET /payout/destinations → { destinations: [{ country, currency, paymentMethods }] };
 *   GET /payout/destinations/{country}/banks → { banks: [{ code, name }] };
 *   GET /payout/schemas/{recipient|account|transaction}?country= → { kind, country, fields: [{ name, type, required }] }.
 * - Wallets: GET /organizations/{tenant}/wallets → { wallets: [{ currency, available, pending }] };
 *   GET .../wallets/{currency}; POST .../wallets/{currency}/deposits { amount: "100.00" } → 201 wallet.
 */
import Decimal from 'decimal.js';
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../sandbox.context';
import type { RemittancesAuth } from './remittances.auth';
import { badRequest, notFound, RemittancesError } from './remittances.errors';
import type { PeopleStore } from './remittances.people';
import { isRecord, uuid } from './remittances.util';

const RATES: Record<string, string> = {
  'USD/BRL': '5.0123',
  'USD/MXN': '17.1234',
  'USD/COP': '3950.50',
  'USD/PHP': '56.10',
  'USD/EUR': '0.9210',
  'EUR/BRL': '5.4321',
};
const FEE = '2.99';

export const DESTINATIONS = [
  { country: 'BR', currency: 'BRL', paymentMethods: ['BANK_ACCOUNT', 'WALLET'] },
  { country: 'MX', currency: 'MXN', paymentMethods: ['BANK_ACCOUNT', 'CASH'] },
  { country: 'CO', currency: 'COP', paymentMethods: ['BANK_ACCOUNT'] },
  { country: 'PH', currency: 'PHP', paymentMethods: ['BANK_ACCOUNT', 'WALLET', 'CASH'] },
];
const BANKS: Record<string, Array<{ code: string; name: string }>> = {
  BR: [
    { code: '001', name: 'Banco do Brasil' },
    { code: '260', name: 'Nu Pagamentos' },
  ],
  MX: [{ code: '002', name: 'Banamex' }],
  CO: [{ code: '007', name: 'Bancolombia' }],
  PH: [{ code: 'BDO', name: 'BDO Unibank' }],
};
const SCHEMAS: Record<string, Array<{ name: string; type: string; required: boolean }>> = {
  recipient: [
    { name: 'firstName', type: 'string', required: true },
    { name: 'lastName', type: 'string', required: true },
    { name: 'address', type: 'object', required: true },
  ],
  account: [
    { name: 'bankCode', type: 'string', required: true },
    { name: 'accountNumber', type: 'string', required: true },
    { name: 'accountType', type: 'string', required: true },
  ],
  transaction: [
    { name: 'externalTransactionId', type: 'string', required: false },
    { name: 'amount', type: 'object', required: true },
    { name: 'purpose', type: 'string', required: false },
  ],
};

const DECIMAL = /^\d{1,15}(\.\d{1,8})?$/;

export class PayoutStore {
  private readonly walletMap = new Map<string, { available: Decimal; pending: Decimal }>();
  private readonly accounts = new Map<string, unknown>();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly people: PeopleStore,
  ) {}

  reset(): void {
    this.walletMap.clear();
    this.accounts.clear();
  }

  quote(body: unknown) {
    if (!isRecord(body)) throw badRequest('body must be a JSON object');
    const src = body.sourceCurrency;
    const dst = body.destinationCurrency;
    if (typeof src !== 'string' || typeof dst !== 'string')
      throw badRequest('invalid quote', [{ field: 'sourceCurrency/destinationCurrency', problem: 'required' }]);
    const rateStr = src === dst ? '1' : RATES[`${src}/${dst}`];
    if (!rateStr) throw new RemittancesError(400, 'UNSUPPORTED_CORRIDOR', `no corridor ${src} → ${dst}`);
    const rate = new Decimal(rateStr);
    const fee = new Decimal(FEE);
    let source: Decimal;
    let destination: Decimal;
    if (typeof body.sourceAmount === 'string' && DECIMAL.test(body.sourceAmount)) {
      source = new Decimal(body.sourceAmount);
      destination = Decimal.max(source.minus(fee), 0).times(rate).toDecimalPlaces(2, Decimal.ROUND_DOWN);
    } else if (typeof body.destinationAmount === 'string' && DECIMAL.test(body.destinationAmount)) {
      destination = new Decimal(body.destinationAmount);
      source = destination.dividedBy(rate).toDecimalPlaces(2, Decimal.ROUND_UP).plus(fee);
    } else {
      throw badRequest('invalid quote', [
        { field: 'sourceAmount', problem: 'sourceAmount or destinationAmount (decimal string) is required' },
      ]);
    }
    return {
      quoteId: uuid(),
      sourceCurrency: src,
      destinationCurrency: dst,
      sourceAmount: source.toFixed(2),
      destinationAmount: destination.toFixed(2),
      rate: rate.toString(),
      fee: fee.toFixed(2),
      expiresAt: new Date(this.ctx.nowMs() + this.ctx.options.quoteLifetimeS * 1000).toISOString(),
    };
  }

  fundingAccount(tenantId: string, participantId: string, body: unknown) {
    this.people.get(tenantId, participantId);
    if (!isRecord(body) || (body.type !== 'CARD' && body.type !== 'BANK_ACCOUNT'))
      throw badRequest('invalid funding account', [{ field: 'type', problem: 'CARD or BANK_ACCOUNT' }]);
    const ref = String(body.cardTokenId ?? body.accountNumber ?? '');
    const account = {
      id: uuid(),
      participantId,
      type: body.type,
      status: 'ACTIVE',
      last4: ref.length >= 4 ? ref.slice(-4) : null,
      createdAt: this.ctx.now().toISOString(),
    };
    this.accounts.set(account.id, account);
    return account;
  }

  recipientAccount(tenantId: string, participantId: string, body: unknown) {
    this.people.get(tenantId, participantId);
    if (!isRecord(body)) throw badRequest('body must be a JSON object');
    const account = {
      id: uuid(),
      participantId,
      provider: 'gateway',
      status: 'ACTIVE',
      details: body,
      createdAt: this.ctx.now().toISOString(),
    };
    this.accounts.set(account.id, account);
    return account;
  }

  private wallet(tenantId: string, currency: string) {
    const key = `${tenantId}/${currency}`;
    let w = this.walletMap.get(key);
    if (!w) {
      w = { available: new Decimal(currency === 'USD' ? '10000.00' : '0'), pending: new Decimal(0) };
      this.walletMap.set(key, w);
    }
    return { currency, available: w.available.toFixed(2), pending: w.pending.toFixed(2), _w: w };
  }

  walletView(tenantId: string, currency: string) {
    if (!/^[A-Z]{3}$/.test(currency)) throw notFound('wallet');
    const { _w, ...view } = this.wallet(tenantId, currency);
    void _w;
    return view;
  }

  listWallets(tenantId: string) {
    const currencies = new Set(['USD']);
    for (const key of this.walletMap.keys()) if (key.startsWith(`${tenantId}/`)) currencies.add(key.slice(tenantId.length + 1));
    return { wallets: [...currencies].sort().map((c) => this.walletView(tenantId, c)) };
  }

  deposit(tenantId: string, currency: string, body: unknown) {
    if (!isRecord(body) || typeof body.amount !== 'string' || !DECIMAL.test(body.amount) || new Decimal(body.amount).lte(0))
      throw badRequest('invalid deposit', [{ field: 'amount', problem: 'positive decimal string' }]);
    this.walletView(tenantId, currency);
    const w = this.wallet(tenantId, currency)._w;
    w.available = w.available.plus(body.amount);
    return this.walletView(tenantId, currency);
  }
}

export function checkAddress(q: Record<string, string | undefined>) {
  const problems: string[] = [];
  if (!q.line1) problems.push('line1');
  if (!q.city) problems.push('city');
  if (!q.country || !/^[A-Za-z]{2}$/.test(q.country)) problems.push('country');
  return {
    valid: problems.length === 0,
    problems,
    normalized: {
      line1: q.line1?.trim() ?? null,
      line2: q.line2?.trim() || null,
      city: q.city?.trim() ?? null,
      state: q.state?.trim().toUpperCase() || null,
      postalCode: q.postalCode?.trim() || null,
      country: q.country?.toUpperCase() ?? null,
    },
  };
}

export function registerPayoutRoutes(app: FastifyInstance, store: PayoutStore, auth: RemittancesAuth): void {
  const agent = { preHandler: auth.requireAgent };
  const tenant = (r: Parameters<RemittancesAuth['principal']>[0]) => auth.principal(r).tenantId;
  type Q = { Querystring: Record<string, string | undefined> };
  type PId = { Params: { id: string } };
  type PCur = { Params: { tenant: string; currency: string } };

  app.get<Q>('/addresses/check', async (request) => checkAddress(request.query));

  app.post('/payout/quotes', agent, async (request, reply) => reply.code(201).send(store.quote(request.body)));
  app.post<PId>('/payout/participants/:id/fundingAccounts', agent, async (request, reply) =>
    reply.code(201).send(store.fundingAccount(tenant(request), request.params.id, request.body)),
  );
  app.post<PId>('/payout/participants/:id/recipientAccounts/gateway', agent, async (request, reply) =>
    reply.code(201).send(store.recipientAccount(tenant(request), request.params.id, request.body)),
  );

  app.get('/payout/destinations', agent, async () => ({ destinations: DESTINATIONS }));
  app.get<{ Params: { country: string } }>('/payout/destinations/:country/banks', agent, async (request) => {
    const banks = BANKS[request.params.country.toUpperCase()];
    if (!banks) throw notFound('destination');
    return { banks };
  });
  app.get<{ Params: { kind: string } } & Q>('/payout/schemas/:kind', agent, async (request) => {
    const fields = SCHEMAS[request.params.kind];
    if (!fields) throw notFound('schema');
    return { kind: request.params.kind, country: request.query.country?.toUpperCase() ?? null, fields };
  });

  app.get('/organizations/:tenant/wallets', agent, async (request) => store.listWallets(tenant(request)));
  app.get<PCur>('/organizations/:tenant/wallets/:currency', agent, async (request) =>
    store.walletView(tenant(request), request.params.currency),
  );
  app.post<PCur>('/organizations/:tenant/wallets/:currency/deposits', agent, async (request, reply) =>
    reply.code(201).send(store.deposit(tenant(request), request.params.currency, request.body)),
  );
}
