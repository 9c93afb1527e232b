import { approvedPersonRow } from '../helpers/funding';
import { randomUUID } from 'node:crypto';
import type { PrismaClient, Transfer } from '../../src/generated/prisma/client';

/** A quote, a person and an AUTHORIZED transfer using them, with two events — in one transaction. */
export async function seedTransfer(prisma: PrismaClient, ownerId = `user-${randomUUID()}`): Promise<Transfer> {
  return prisma.$transaction(async (tx) => {
    const quote = await tx.quote.create({
      data: {
        ownerId,
        fxId: `fx-${randomUUID()}`,
        rate: '5.123456789012',
        sourceCurrency: 'USD',
        destinationCurrency: 'BRL',
        sourceAmount: '100.10',
        paymentMethod: 'CARD',
        destinationCountry: 'BR',
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    const person = await tx.person.create({ data: { ...approvedPersonRow(ownerId) } });
    const id = randomUUID();
    const transfer = await tx.transfer.create({
      data: {
        id,
        ownerId,
        status: 'AUTHORIZED',
        version: 2,
        eventSeq: 2,
        quoteId: quote.id,
        personId: person.id,
        sendAmount: '100.10',
        sendCurrency: 'USD',
        receiveAmount: '512.85',
        receiveCurrency: 'BRL',
        rate: quote.rate,
        externalPaymentId: `pay-${id}`,
        fundingType: 'card',
        details: { sender: { firstName: 'Ana', lastName: 'Silva' } },
        authorizedAt: new Date(),
        events: {
          create: [
            { seq: 1, version: 1, toStatus: 'PENDING', cause: 'api.createTransfer', actor: ownerId },
            { seq: 2, version: 2, fromStatus: 'PENDING', toStatus: 'AUTHORIZED', cause: 'saga.authorize', upstreamRef: 'auth-1' },
          ],
        },
      },
    });
    // claim the quote atomically (the real flow does this before creating the transfer)
    const claimed = await tx.quote.updateMany({
      where: { id: quote.id, usedByTransferId: null },
      data: { usedByTransferId: id },
    });
    if (claimed.count !== 1) throw new Error('quote already used');
    return transfer;
  });
}
