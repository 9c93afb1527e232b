/**
 * The journey so far, kept in sessionStorage: the 3-D Secure page is another site, so the browser leaves the app
 * and comes back to a fresh page that must know where it was.
 */
import type {
  AppTransferFragment,
  CheckCardMutation,
  CreatePersonMutation,
  CreateQuoteMutation,
  TransferStatus,
} from '../../../schema/app/generated';

export type Screen = 'quote' | 'kyc' | 'card' | 'confirm' | 'status' | 'receipt';

export interface Journey {
  screen: Screen;
  quote?: CreateQuoteMutation['createQuote'];
  person?: CreatePersonMutation['createPerson'];
  /** The sender's name as typed on the KYC screen (for the next screens). */
  senderName?: string;
  card?: { token: string; check: CheckCardMutation['checkCard'] };
  /** createTransfer's key: made once on the confirm screen, reused by every retry of that intent. */
  transferKey?: string;
  transferId?: string;
  /** The transfer as last received, and the statuses shown on the status screen, in order. */
  transfer?: AppTransferFragment;
  statuses?: TransferStatus[];
}

const KEY = 'remittance-web-app:journey';

export function loadJourney(): Journey {
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Journey | null;
    if (saved?.screen) return saved;
  } catch {
    // unreadable: start over
  }
  return { screen: 'quote' };
}

export function saveJourney(j: Journey): void {
  sessionStorage.setItem(KEY, JSON.stringify(j));
}

/** A fresh idempotency key (a UUID). */
export function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16)); // randomUUID needs a secure context (https or localhost)
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
