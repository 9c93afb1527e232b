/**
 * Back-office search (TransferFilter.search): what a customer says on the phone finds the transfer. Names, e-mails,
 * the PIX key or wallet id and the funding's last four are the transfer's search terms (`transfers.search_terms`,
 * written once at creation, GIN-indexed), normalized and matched whole, all words of a search together; a receipt
 * reference (`7F3A-9C21-0B4E`) is a range on the id; the platform's transaction id is matched exactly. docs/api.md
 * has the user's view.
 */
import type { TransferDetails } from './transfer.columns';

/** Lower case, no diacritics, no punctuation at the ends; inner `@ . _ + -` kept (e-mails, keys). */
function normalizeTerm(word: string): string {
  return word
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

const words = (text: string | null | undefined): string[] => (text ?? '').split(/\s+/).map(normalizeTerm).filter(Boolean);

/** The search terms of a new transfer (deduplicated, at most 64, each at most 128 characters). */
export function searchTermsOf(d: Pick<TransferDetails, 'sender' | 'recipient' | 'funding'>): string[] {
  const terms = new Set<string>();
  const add = (t: string | null | undefined) => {
    const n = t ? normalizeTerm(t) : '';
    if (n && n.length <= 128) terms.add(n);
  };
  for (const c of [d.sender.customer, d.recipient.customer]) {
    for (const w of [...words(c.firstName), ...words(c.lastName)]) add(w);
    add(c.email);
  }
  const dest = d.recipient.destination;
  add(dest.pixKey);
  const digits = dest.pixKey?.replace(/\D/g, '') ?? '';
  if (digits.length >= 4 && dest.pixKeyType !== 'EMAIL' && dest.pixKeyType !== 'EVP') add(digits);
  add(dest.walletId);
  add(d.funding.lastFour);
  return [...terms].slice(0, 64);
}

/** What a search string asks for: the id prefix of a reference, the words to match, the string as a platform id. */
interface SearchQuery {
  /** The transfer id's first 12 hex digits as `xxxxxxxx-xxxx`, when the search reads as a reference. */
  idPrefix: string | null;
  /** Normalized words, all of which a transfer's terms must hold (empty: none usable). */
  terms: string[];
  /** The search as the platform's transaction id (exact). */
  platformId: string;
}

/** The receipt reference of a transfer id: its first 12 hex digits, upper case, in groups of four. */
export function referenceOf(id: string): string {
  const hex = id.replace(/-/g, '').slice(0, 12).toUpperCase();
  return `${hex.slice(0, 4)}-${hex.slice(4, 8)}-${hex.slice(8, 12)}`;
}

export function parseSearch(search: string): SearchQuery {
  const text = search.trim();
  const hex = text.replace(/[\s-]/g, '').toLowerCase();
  const idPrefix = /^[0-9a-f]{12}$/.test(hex) ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}` : null;
  // digits of a key typed with punctuation ("123.456.789-09") are matched as digits
  const terms = words(text).map((w) => (/^[\d.\-/()+ ]+$/.test(w) && /\d{4}/.test(w.replace(/\D/g, '')) ? w.replace(/\D/g, '') : w));
  return { idPrefix, terms: [...new Set(terms)].slice(0, 8), platformId: text };
}
