import type { RecipientDetails } from '../transfer/transfer.ports';

/** A caller's saved recipient as a transfer copies it (recipientId set), or NOT_FOUND (someone else's, unknown, deleted). Provided as `recipients`. */
export type SavedRecipientLookup = (ownerId: string, recipientId: string) => Promise<RecipientDetails>;
