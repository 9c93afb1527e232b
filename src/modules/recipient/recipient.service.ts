import type { PrismaClient, Recipient as RecipientRow } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import { badField, notFound } from '../../shared/errors';
import type { AliasLookup } from '../directory/directory.ports';
import { assertRecipient, recipientShown, savedRecipientDetails, type RecipientDetails } from '../transfer/transfer.ports';

/** How many recipients one caller may keep (a bound on what a caller can make us store). */
const MAX_SAVED_RECIPIENTS = 200;

/** A saved recipient as the API shows it: masked, never the whole key, wallet id or document. */
interface SavedRecipient {
  id: string;
  name: string;
  destinationType: string;
  destination: string;
  countryCode: string;
  holderName: string | null;
  createdAt: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A caller's saved recipients (recipients table). Saving applies the rules of createTransfer's inline recipient
 * (the input type's and assertRecipient) before anything else, then — for a PIX key — asks the alias directory
 * whether the key exists (the holder's masked name is kept for the app to confirm). A recipient is the caller's
 * alone: another caller's id answers NOT_FOUND, like an unknown one. createTransfer(recipientId) copies it
 * (snapshot); deleting it never touches a transfer.
 */
export class RecipientService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly aliases: AliasLookup,
    private readonly clock: Clock,
  ) {}

  async create(ownerId: string, input: RecipientDetails): Promise<SavedRecipient> {
    assertRecipient(input, '');
    const saved = await this.prisma.recipient.count({ where: { ownerId } });
    if (saved >= MAX_SAVED_RECIPIENTS)
      throw badField('input', 'TOO_MANY_ITEMS', `You have ${MAX_SAVED_RECIPIENTS} saved recipients, the most allowed: delete one first`, {
        limit: MAX_SAVED_RECIPIENTS,
      });
    const d = input.destination;
    let holderName: string | null = null;
    if (d.type === 'PIX') {
      // PIX keys are Brazilian (the rail of BR), wherever the recipient lives
      const found = await this.aliases('BR', d.pixKeyType!, d.pixKey!);
      if (!found.found)
        throw badField(
          'input.destination.pixKey',
          'NOT_VERIFIED',
          'destination.pixKey: no PIX account is registered for this key; check it with the recipient',
          { reason: 'PIX_KEY_NOT_FOUND' },
        );
      holderName = found.holder.displayName || null;
    }
    const row = await this.prisma.recipient.create({
      data: { ownerId, details: JSON.parse(JSON.stringify(stored(input))), holderName, createdAt: this.clock.now() },
    });
    return toSaved(row);
  }

  /** The owner's saved recipients, newest first, after a keyset position (createdAt, id): `size` of them and whether more follow. */
  async list(
    ownerId: string,
    after: { createdAt: Date; id: string } | null,
    size: number,
  ): Promise<{ rows: SavedRecipient[]; hasNextPage: boolean }> {
    const rows = await this.prisma.recipient.findMany({
      where: {
        ownerId,
        ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: size + 1,
    });
    return { rows: rows.slice(0, size).map(toSaved), hasNextPage: rows.length > size };
  }

  /** Deletes the owner's saved recipient; another caller's, an unknown or a malformed id is NOT_FOUND. */
  async delete(ownerId: string, id: string): Promise<void> {
    const gone = UUID.test(id) ? (await this.prisma.recipient.deleteMany({ where: { id, ownerId } })).count : 0;
    if (gone === 0) throw notFound('Recipient');
  }

  /** The owner's saved recipient as a new transfer copies it (recipientId set); NOT_FOUND otherwise. */
  async snapshot(ownerId: string, id: string): Promise<RecipientDetails> {
    const row = UUID.test(id) ? await this.prisma.recipient.findFirst({ where: { id, ownerId } }) : null;
    if (!row) throw notFound('Recipient');
    return { ...savedRecipientDetails(row.details), recipientId: row.id };
  }
}

/** What is kept of a recipient: its fields as given (absent optional ones null), the destination's own only. */
function stored(r: RecipientDetails): RecipientDetails {
  const c = r.customer;
  const a = r.address;
  const d = r.destination;
  return {
    customer: {
      firstName: c.firstName,
      lastName: c.lastName,
      email: c.email ?? null,
      phoneNumber: c.phoneNumber ?? null,
      documentNumber: c.documentNumber ?? null,
      documentType: c.documentType ?? null,
    },
    address: {
      line1: a.line1,
      line2: a.line2 ?? null,
      city: a.city,
      region: a.region,
      regionCode: a.regionCode ?? null,
      postalCode: a.postalCode,
      countryCode: a.countryCode,
    },
    destination: d.type === 'PIX' ? { type: 'PIX', pixKeyType: d.pixKeyType, pixKey: d.pixKey } : { type: 'WALLET', walletId: d.walletId },
  };
}

function toSaved(row: RecipientRow): SavedRecipient {
  const details = savedRecipientDetails(row.details);
  const shown = recipientShown(details);
  return {
    id: row.id,
    name: shown.name,
    destinationType: shown.destinationType,
    destination: shown.destination,
    countryCode: details.address.countryCode.toUpperCase(),
    holderName: row.holderName,
    createdAt: row.createdAt,
  };
}
