/**
 * What an app sees of a transfer that can change, defined once (SHOWN): each such field of the GraphQL Transfer
 * says which columns it is shown from, how an audit event keeps each of them (transfer_events.shown) and how the
 * field is read from a row. A change of any of them is a new `version`. Everything else is derived from the table:
 * the Shown payload, shownOf(row), the snapshot of a transfer just created, what a change's patch makes shown, the
 * payload read back (eventShown), a version replayed (shownAt) and the fields' view (shownView).
 *
 * Every other field of the GraphQL Transfer is listed in NOT_SHOWN with why it does not make a version; a field
 * in neither does not compile.
 */
import { Prisma } from '../../generated/prisma/client';
import { failureCodeOf } from '../../shared/failure-codes';
import { formatAmount } from '../../shared/money';
import { nextAction, Shape } from './transfer.columns';
import type { TransferPatch, TransferRow } from './transfer.repository';
import { isJsonNull, plain } from './transfer.rows.repository';
import type { Transfer } from './transfer.types';

/**
 * The fields of the GraphQL Transfer whose changes make no version: fixed at creation, the version itself and
 * what counts changes, and platform facts (recorded in the audit trail only; a version replayed shows them as they
 * are now).
 */
export const NOT_SHOWN = {
  id: 'fixed',
  ownerId: 'fixed',
  sendAmount: 'fixed',
  fee: 'fixed',
  total: 'fixed',
  receiveAmount: 'fixed',
  rate: 'fixed',
  deliveryEstimate: 'fixed',
  fundingType: 'fixed',
  destinationCountry: 'fixed',
  createdAt: 'fixed',
  version: 'the version',
  updatedAt: 'the version',
  lastEventSeq: 'the audit trail',
  complianceStatus: 'platform fact',
  platformStatus: 'platform fact',
  payoutStatus: 'platform fact',
} as const satisfies Partial<Record<keyof Transfer, string>>;

/** The fields of the GraphQL Transfer an app sees change: every field not in NOT_SHOWN. */
export type ShownKey = Exclude<keyof Transfer, keyof typeof NOT_SHOWN>;

/** How a column of a shown field is kept in an audit event (`S`, JSON) and read back (`R`, the row's value). */
export interface Kept<R, S extends Prisma.JsonValue> {
  /** The row's value, or a patch's (Prisma's `{ set }` unwrapped), as kept. */
  keep(v: unknown): S;
  /** The value an event kept under `key`, checked; absent (an event recorded before it was kept): as at creation. */
  read(o: Record<string, unknown>, key: string): S;
  load(s: S): R;
  /** Its value when the transfer is created (version 1). */
  created: S;
  /** Two values it can keep, differently shown (the unit test replays every field with them). */
  examples: readonly [S, S];
}

/** A field an app sees change: the columns it is shown from (each kept in the events) and its view of a row. */
export interface ShownField<K extends ShownKey> {
  from: { readonly [C in keyof TransferRow]?: Kept<TransferRow[C], Prisma.JsonValue> };
  view(t: TransferRow): Transfer[K];
}

/** The table: one entry per field of the GraphQL Transfer an app sees change. */
export type ShownTable = { readonly [K in ShownKey]-?: ShownField<K> };

const shape = new Shape('transfer_events.shown');
const optionalString = (o: Record<string, unknown>, key: string): string | null => shape.optionalString(o, '', key);

const STATUS: Kept<TransferRow['status'], string> = {
  keep: (v) => String(v),
  read: (o, key) => shape.string(o, '', key),
  load: (s) => s as TransferRow['status'],
  created: 'PENDING',
  examples: ['AUTHORIZED', 'CAPTURED'],
};

const TEXT: Kept<string | null, string | null> = {
  keep: (v) => (v == null ? null : String(v)),
  read: optionalString,
  load: (s) => s,
  created: null,
  examples: ['a', null],
};

/** A JSON column (JSON null and DB null alike kept as null). */
const JSON_VALUE: Kept<Prisma.JsonValue | null, Prisma.JsonValue> = {
  keep: (v) => (v == null || v === Prisma.DbNull || isJsonNull(v) ? null : (v as Prisma.JsonValue)),
  read: (o, key) => (o[key] ?? null) as Prisma.JsonValue,
  load: (s) => s,
  created: null,
  examples: [{ type: 'THREE_DS_CHALLENGE', redirectUrl: 'https://acs.example/challenge' }, null],
};

const AMOUNT: Kept<Prisma.Decimal | null, string | null> = {
  keep: (v) => (v == null ? null : new Prisma.Decimal(String(v)).toFixed()),
  read: optionalString,
  load: (s) => (s === null ? null : new Prisma.Decimal(s)),
  created: null,
  examples: ['100.5', null],
};

/** An amount that is never null: 0 at creation. */
const AMOUNT_OR_ZERO: Kept<Prisma.Decimal, string> = {
  keep: (v) => new Prisma.Decimal(String(v)).toFixed(),
  read: (o, key) => optionalString(o, key) ?? '0',
  load: (s) => new Prisma.Decimal(s),
  created: '0',
  examples: ['25', '0'],
};

const TIME: Kept<Date | null, string | null> = {
  keep: (v) => (v == null ? null : new Date(v as Date | string).toISOString()),
  read: optionalString,
  load: (s) => (s === null ? null : new Date(s)),
  created: null,
  examples: ['2024-05-01T12:00:00.000Z', null],
};

const money = (amount: Prisma.Decimal, t: TransferRow) => ({ amount: formatAmount(amount, t.sendCurrency), currency: t.sendCurrency });

export const SHOWN = {
  status: { from: { status: STATUS }, view: (t) => t.status },
  nextAction: {
    from: { nextAction: JSON_VALUE },
    view: (t) => {
      const next = nextAction(t.nextAction);
      return next?.type ? ({ type: next.type, redirectUrl: next.redirectUrl } as Transfer['nextAction']) : null;
    },
  },
  capturedAmount: { from: { capturedAmount: AMOUNT }, view: (t) => (t.capturedAmount !== null ? money(t.capturedAmount, t) : null) },
  refundedAmount: { from: { refundedAmount: AMOUNT_OR_ZERO }, view: (t) => money(t.refundedAmount, t) },
  failure: {
    from: { failureCode: TEXT, failureMessage: TEXT },
    view: (t) =>
      t.failureCode ? { code: failureCodeOf(t.failureCode), recordedCode: t.failureCode, recordedMessage: t.failureMessage ?? null } : null,
  },
  cancelRequestedAt: { from: { cancelRequestedAt: TIME }, view: (t) => t.cancelRequestedAt },
} satisfies ShownTable;

type From = (typeof SHOWN)[keyof typeof SHOWN]['from'];
type KeysOf<T> = T extends unknown ? keyof T : never;
type KeptAs<C> = From extends infer F ? (F extends { readonly [P in C & string]: Kept<unknown, infer S> } ? S : never) : never;

/** The columns an app's view of a transfer is shown from. */
export type ShownColumn = KeysOf<From>;

/** What an app shows of a transfer at a version, as its audit event keeps it (transfer_events.shown). */
export type Shown = { [C in ShownColumn]: KeptAs<C> };

/** Every shown column with how it is kept. */
const KEPT = Object.values(SHOWN).flatMap((f) => Object.entries(f.from)) as [ShownColumn, Kept<unknown, Prisma.JsonValue>][];

const shownFrom = (value: (c: ShownColumn, k: Kept<unknown, Prisma.JsonValue>) => Prisma.JsonValue): Shown =>
  Object.fromEntries(KEPT.map(([c, k]) => [c, value(c, k)])) as Shown;

/** What an app shows of `t`. */
export const shownOf = (t: Pick<TransferRow, ShownColumn>): Shown => shownFrom((c, k) => k.keep(t[c]));

/** What an app sees of a transfer just created (its version 1). */
export const CREATED_SHOWN: Shown = shownFrom((_, k) => k.created);

/** What an app shows of `row` once moved to `status` with `patch` applied. */
export function shownAfter(row: TransferRow, status: TransferRow['status'], patch: TransferPatch): Shown {
  const patched: Record<string, unknown> = { ...row, status };
  for (const [field, v] of Object.entries(patch)) if (v !== undefined) patched[field] = plain(v);
  return shownOf(patched as TransferRow);
}

/** transfer_events.shown → what an app showed at that version, or null (a fact recorded for the audit trail only). */
export function eventShown(json: Prisma.JsonValue | null): Shown | null {
  if (json === null) return null;
  const o = shape.object(json, '');
  return shownFrom((c, k) => k.read(o, c));
}

/**
 * `cur` as an app saw it at an event's version: the shown columns as the event kept them, its status, version and
 * time (an event recorded before `shown` was: the shown columns as they are now); the rest as it is now.
 */
export function shownAt(cur: TransferRow, e: { shown: Prisma.JsonValue | null; toStatus: string; at: Date }, version: number): TransferRow {
  const shown = eventShown(e.shown);
  const then: Record<string, unknown> = { ...cur };
  if (shown) for (const [c, k] of KEPT) then[c] = k.load(shown[c]);
  return { ...(then as TransferRow), status: e.toStatus as TransferRow['status'], version, updatedAt: e.at };
}

/** The shown fields of the GraphQL Transfer, from a row. */
export function shownView(t: TransferRow): Pick<Transfer, ShownKey> {
  const view = {} as Record<ShownKey, unknown>;
  for (const [key, field] of Object.entries(SHOWN) as [ShownKey, ShownField<ShownKey>][]) view[key] = field.view(t);
  return view as Pick<Transfer, ShownKey>;
}
