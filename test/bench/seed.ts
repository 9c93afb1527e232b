import { approvedPersonRow } from '../helpers/funding';
/** Deterministic benchmark data: the same ids and rows in every database the benchmark seeds. */
import type { PrismaClient } from '../../src/generated/prisma/client';

export const OWNER = 'bench-owner';
export const benchId = (kind: number, i: number): string =>
  `00000000-0000-4${kind.toString(16).padStart(3, '0')}-8000-${i.toString(16).padStart(12, '0')}`;
export const transferId = (i: number): string => benchId(1, i);

const STEPS = ['PENDING', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED'] as const;

/**
 * `count` transfers of OWNER (ids transferId(from) … transferId(from + count - 1)), each with `events` audit events (1 ≤ events ≤ 5: the happy path so far).
 * Idempotent: rows that exist are kept (PostgreSQL runs share one database between processes).
 */
export async function seedTransfers(
  prisma: PrismaClient,
  count: number,
  events: number,
  opts: { status?: string; from?: number } = {},
): Promise<string[]> {
  const ids: string[] = [];
  const base = Date.UTC(2026, 0, 1);
  const from = opts.from ?? 0;
  for (let i = from; i < from + count; i++) {
    const id = transferId(i);
    ids.push(id);
    if (await prisma.transfer.findUnique({ where: { id }, select: { id: true } })) continue;
    const at = new Date(base + i * 60_000);
    const n = opts.status ? 1 : Math.max(1, Math.min(events, STEPS.length));
    const status = opts.status ?? STEPS[n - 1]!;
    const quoteId = benchId(2, i);
    const personId = benchId(3, i);
    await prisma.quote.create({
      data: {
        id: quoteId,
        ownerId: OWNER,
        fxId: benchId(4, i),
        rate: '5.0123',
        sourceCurrency: 'USD',
        destinationCurrency: 'BRL',
        sourceAmount: '100.00',
        destinationAmount: '501.23',
        paymentMethod: 'WALLET',
        expiresAt: new Date(at.getTime() + 300_000),
      },
    });
    await prisma.person.create({ data: { id: personId, ...approvedPersonRow(OWNER) } });
    await prisma.transfer.create({
      data: {
        id,
        ownerId: OWNER,
        status: status as never,
        version: n,
        eventSeq: n,
        quoteId,
        personId,
        sendAmount: '100.00',
        sendCurrency: 'USD',
        receiveAmount: '501.23',
        receiveCurrency: 'BRL',
        rate: '5.0123',
        externalPaymentId: id,
        fundingType: 'card',
        details: {},
        createdAt: at,
        updatedAt: new Date(at.getTime() + n * 1000),
        events: {
          create: Array.from({ length: n }, (_, k) => ({
            seq: k + 1,
            version: k + 1,
            fromStatus: (k === 0 ? null : STEPS[k - 1]) as never,
            toStatus: (opts.status ?? STEPS[k]) as never,
            cause: k === 0 ? 'mutation' : k < 3 ? 'worker' : 'webhook',
            actor: k === 0 ? OWNER : k < 3 ? 'worker' : 'webhook',
            detail: k === 0 ? undefined : { action: STEPS[k]!.toLowerCase() },
            at: new Date(at.getTime() + k * 1000),
          })),
        },
      },
    });
    await prisma.quote.update({ where: { id: quoteId }, data: { usedByTransferId: id } });
  }
  return ids;
}

/** The benchmark-1 query: a transfer with its events (what the apps ask constantly). */
export const TRANSFER_QUERY = `query Transfer($id: ID!) { transfer(id: $id) { id status version
  sendAmount { amount currency } receiveAmount { amount currency } rate
  nextAction { type redirectUrl } failure { code message } createdAt updatedAt
  events(first: 20) { edges { cursor node { seq fromStatus toStatus cause actor action at } } pageInfo { hasNextPage endCursor } } } }`;

/** A 100-row transfer list with events (constant query count check). */
export const TRANSFER_LIST_QUERY = `query Transfers { transfers(first: 100) { edges { cursor node { id status version
  sendAmount { amount currency } events(first: 10) { edges { node { seq toStatus } } } } } pageInfo { hasNextPage endCursor } } }`;

export const BANKS_QUERY = `query Banks { banks(countryCode: "BR", first: 20) { totalCount edges { cursor node { bankCode name countryCode swift } } pageInfo { hasNextPage endCursor } } }`;

export const SUBSCRIPTION_QUERY = `subscription Updated($id: ID!) { transferUpdated(transferId: $id) { id status version sendAmount { amount currency } receiveAmount { amount currency } updatedAt } }`;
