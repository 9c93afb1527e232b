import { approvedPersonRow } from '../helpers/funding';
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../../src/generated/prisma/client';

/** A quote + person + PENDING transfer (version 1, eventSeq 1) straight in the database, for repository-level tests. */
export async function insertTransfer(prisma: PrismaClient, opts: { ownerId?: string; createdAt?: Date; status?: string } = {}) {
  const ownerId = opts.ownerId ?? 'alice';
  const createdAt = opts.createdAt ?? new Date();
  const quote = await prisma.quote.create({
    data: {
      ownerId,
      fxId: randomUUID(),
      rate: '5.0123',
      sourceCurrency: 'USD',
      destinationCurrency: 'BRL',
      sourceAmount: '100.00',
      destinationAmount: '501.23',
      paymentMethod: 'WALLET',
      expiresAt: new Date(createdAt.getTime() + 300_000),
    },
  });
  const person = await prisma.person.create({ data: { ...approvedPersonRow(ownerId) } });
  const id = randomUUID();
  const transfer = await prisma.transfer.create({
    data: {
      id,
      ownerId,
      status: (opts.status ?? 'PENDING') as never,
      version: 1,
      eventSeq: 1,
      quoteId: quote.id,
      personId: person.id,
      sendAmount: '100.00',
      sendCurrency: 'USD',
      receiveAmount: '501.23',
      receiveCurrency: 'BRL',
      rate: '5.0123',
      externalPaymentId: id,
      fundingType: 'card',
      details: {},
      createdAt,
      updatedAt: createdAt,
      events: {
        create: {
          seq: 1,
          version: 1,
          fromStatus: null,
          toStatus: (opts.status ?? 'PENDING') as never,
          cause: 'mutation',
          actor: ownerId,
          at: createdAt,
        },
      },
    },
  });
  await prisma.quote.update({ where: { id: quote.id }, data: { usedByTransferId: id } });
  return transfer;
}
