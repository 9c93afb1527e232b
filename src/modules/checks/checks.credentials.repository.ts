import { createHash } from 'node:crypto';
import type { RawSql } from '../../db/raw-sql';
import { Prisma } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import { AppError } from '../../shared/errors';

/**
 * card: a tokenizer card token; account_token: the accountTokenId of a linked bank account; link_token: the
 * bank-linking widget's public token that a linked-account check exchanged.
 */
type CredentialKind = 'card' | 'account_token' | 'link_token';

/**
 * The one answer for a credential the caller may not use — unknown, bound to another customer, or (a card) not
 * checked recently enough: it never tells them apart, so a customer learns nothing about another's tokens.
 */
const MISSING: Record<CredentialKind, string> = {
  card: 'Card token not found: check the card with checkCard first (again if the last check is older than the allowed age)',
  account_token: 'Bank account token not found: link the account with checkBankAccount (linked) first',
  link_token: 'Bank-linking result not found: link the account again in the bank-linking widget',
};
const credentialNotFound = (kind: CredentialKind) => new AppError('NOT_FOUND', MISSING[kind]);

/** UUIDs compare case-insensitively (the gateway reads "AB…" and "ab…" as one card): one digest for both. */
const canonical = (kind: CredentialKind, token: string) => (kind === 'card' ? token.toLowerCase() : token);
const digest = (kind: CredentialKind, token: string) =>
  createHash('sha256')
    .update(`${kind}:${canonical(kind, token)}`)
    .digest('hex');

/**
 * Funding credentials bound to their owner (`funding_credentials`). A check the gateway answered binds the
 * credential to the customer who asked (the first one wins, for good); from then on only that customer can check
 * it again or fund a transfer with it. Everyone else — back-office and admins too: funding is always the
 * caller's own — gets `credentialNotFound`, before any upstream call.
 */
export class FundingCredentials {
  constructor(
    /** Raw statements (Database.sql): a credential is read and bound in one statement each, beside Prisma's client. */
    private readonly sql: RawSql,
    private readonly clock: Clock,
    private readonly opts: { cardCheckMaxAgeMs: number; cardCheckReuseMs: number },
  ) {}

  /** Before a check: refuses a credential bound to someone else (unbound or the caller's own: go on). */
  async assertCheckable(kind: CredentialKind, token: string, ownerId: string): Promise<void> {
    const [row] = await this.sql.query<{
      owner_id: string;
    }>`SELECT owner_id FROM funding_credentials WHERE token_hash = ${digest(kind, token)}`;
    if (row && row.owner_id !== ownerId) throw credentialNotFound(kind);
  }

  /**
   * After a check the gateway answered: binds the credential to `ownerId`, or refreshes the owner's check time.
   * `approvedHolder`: a card check the gateway APPROVED without 3-D Secure, the digest of the holder it was for
   * (null for any other outcome, which also forgets an earlier approval). One statement, so two customers checking
   * the same token at once cannot both own it: the loser gets `credentialNotFound` (and not the result of the check).
   */
  async bind(
    kind: CredentialKind,
    token: string,
    ownerId: string,
    approvedHolder: string | null = null,
    /** The last four digits the gateway answered (kept when an answer has none). */
    lastFour: string | null = null,
  ): Promise<void> {
    const now = this.clock.now();
    const four = lastFour !== null && /^\d{4}$/.test(lastFour) ? lastFour : null;
    const rows = await this.sql.query<{ owner_id: string }>`
      INSERT INTO funding_credentials (token_hash, kind, owner_id, checked_at, approved_holder, last_four, created_at)
      VALUES (${digest(kind, token)}, ${kind}, ${ownerId}, ${now}, ${approvedHolder}, ${four}, ${now})
      ON CONFLICT (token_hash) DO UPDATE SET checked_at = EXCLUDED.checked_at, approved_holder = EXCLUDED.approved_holder,
          last_four = COALESCE(EXCLUDED.last_four, funding_credentials.last_four)
        WHERE funding_credentials.owner_id = EXCLUDED.owner_id
      RETURNING owner_id`;
    if (rows.length !== 1) throw credentialNotFound(kind);
  }

  /**
   * Before a transfer is created: the caller's own, and a card checked recently enough.
   * For a card, returns when its latest check was APPROVED for `holder` (a digest, holderDigest) if that is at most
   * `cardCheckReuseMs` ago — the transfer reuses that check — else null (the saga checks the card again); and the last
   * four digits the gateway answered for it, when it did.
   */
  async assertUsable(
    kind: CredentialKind,
    token: string,
    ownerId: string,
    holder?: string,
  ): Promise<{ approvedAt: Date | null; lastFour: string | null }> {
    const [row] = await this.sql.query<{
      kind: string;
      owner_id: string;
      checked_at: Date;
      approved_holder: string | null;
      last_four: string | null;
    }>`
      SELECT kind, owner_id, checked_at, approved_holder, last_four FROM funding_credentials WHERE token_hash = ${digest(kind, token)}`;
    const age = row === undefined ? Infinity : this.clock.nowMs() - row.checked_at.getTime();
    const fresh = kind !== 'card' || age <= this.opts.cardCheckMaxAgeMs;
    if (!row || row.owner_id !== ownerId || row.kind !== kind || !fresh) throw credentialNotFound(kind);
    const reusable = kind === 'card' && holder !== undefined && row.approved_holder === holder && age <= this.opts.cardCheckReuseMs;
    return { approvedAt: reusable ? row.checked_at : null, lastFour: row.last_four };
  }

  /**
   * A condition for the statement that creates the transfer: the card's latest check is still APPROVED for `holder`,
   * as `assertUsable` read it at `approvedAt` (or approved for the same holder since). A check recorded in between —
   * declined, or for someone else — makes it false, and the saga checks the card again; one being recorded while the
   * statement runs is waited for (the row is read FOR SHARE, so its newest version decides).
   */
  stillApproved(cardToken: string, holder: string, approvedAt: Date): Prisma.Sql {
    return Prisma.sql`EXISTS (SELECT 1 FROM funding_credentials WHERE token_hash = ${digest('card', cardToken)}
      AND approved_holder = ${holder} AND checked_at >= ${approvedAt}::timestamptz FOR SHARE)`;
  }
}
