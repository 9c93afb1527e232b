/**
 * What an app sees of a transfer that can change (transfer.shown.ts), for every field of the table: a change of it
 * is a version, its audit event keeps it, and that version replayed from the event (a subscription's catch-up)
 * shows it as it was then while the next version shows the new value. No database.
 */
import { transferRow } from '../helpers/transfer-row';
import { Prisma } from '../../src/generated/prisma/client';
import { ColumnError } from '../../src/modules/transfer/transfer.columns';
import type { TransferPatch, TransferRow } from '../../src/modules/transfer/transfer.repository';
import {
  CREATED_SHOWN,
  eventShown,
  NOT_SHOWN,
  SHOWN,
  shownAfter,
  shownAt,
  shownOf,
  type Kept,
  type ShownTable,
} from '../../src/modules/transfer/transfer.shown';
import { toTransfer } from '../../src/modules/transfer/transfer.view';

const stored = (v: unknown): Prisma.JsonValue => JSON.parse(JSON.stringify(v)) as Prisma.JsonValue;

/** eventShown refuses `json` with a ColumnError saying `message`. */
function refused(json: unknown, message: string): void {
  expect(() => eventShown(stored(json))).toThrow(ColumnError);
  expect(() => eventShown(stored(json))).toThrow(message);
}

type Key = keyof typeof SHOWN;
const KEYS = Object.keys(SHOWN) as Key[];
const columnsOf = (key: Key) => Object.entries(SHOWN[key].from) as [keyof TransferRow, Kept<unknown, Prisma.JsonValue>][];
const example = (key: Key, i: 0 | 1) => Object.fromEntries(columnsOf(key).map(([c, k]) => [c, k.load(k.examples[i])]));

/** A transfer whose every shown column holds its first example. */
const BASE: TransferRow = transferRow({
  version: 2,
  eventSeq: 4,
  deliveryEarliest: new Date('2024-05-02T00:00:00Z'),
  deliveryLatest: new Date('2024-05-03T00:00:00Z'),
  upstreamTransactionStatus: 'PaymentCaptured',
  complianceStatus: 'Approved',
  ...Object.assign({}, ...KEYS.map((key) => example(key, 0))),
});

describe.each(KEYS)('%s', (key) => {
  it('a change of it is a version; the version before and the one after are replayed as an app saw them', () => {
    const before = BASE;
    const change = example(key, 1);
    const { status, ...patch } = change;

    // the change as the repository plans it: what is shown after it, kept by its event
    const after = shownAfter(before, (status ?? before.status) as TransferRow['status'], patch as TransferPatch);
    expect(after).not.toEqual(shownOf(before));
    const now = { ...before, ...change, version: 3, updatedAt: new Date('2024-05-01T10:00:00Z') } as TransferRow;
    expect(after).toEqual(shownOf(now));

    // the events as stored; the current row is the later one
    const older = { shown: stored(shownOf(before)), toStatus: before.status, at: before.updatedAt };
    const newer = { shown: stored(after), toStatus: now.status, at: now.updatedAt };
    const then = toTransfer(shownAt(now, older, 2));
    const later = toTransfer(shownAt(now, newer, 3));
    expect(then[key]).not.toEqual(later[key]);
    expect(then).toEqual(toTransfer(before));
    expect(later).toEqual(toTransfer(now));
  });

  it('an event that did not keep it (recorded before it was shown) reads it as at creation', () => {
    const created = eventShown(stored({ status: 'PENDING' }))!;
    expect(created).toEqual(CREATED_SHOWN);
    const view = toTransfer(shownAt(BASE, { shown: stored({ status: 'PENDING' }), toStatus: 'PENDING', at: BASE.createdAt }, 1));
    const createdRow = { ...BASE, ...Object.fromEntries(columnsOf(key).map(([c, k]) => [c, k.load(k.created)])) } as TransferRow;
    expect(view[key]).toEqual(toTransfer(createdRow)[key]);
  });
});

it('transfer_events.shown read back: what was kept; absent keys as at creation; null for an audit-only fact', () => {
  const shown = {
    status: 'ACTION_REQUIRED',
    nextAction: { type: 'THREE_DS_CHALLENGE', redirectUrl: 'u' },
    capturedAmount: '100',
    refundedAmount: '25',
    failureCode: null,
    failureMessage: null,
    cancelRequestedAt: '2024-05-01T09:20:00.000Z',
  };
  expect(eventShown(stored(shown))).toEqual(shown);
  // a version recorded before refunds and cancellations were shown showed nothing refunded, no cancellation
  const { refundedAmount: _r, cancelRequestedAt: _c, ...older } = shown;
  expect(eventShown(stored(older))).toEqual({ ...older, refundedAmount: '0', cancelRequestedAt: null });
  expect(eventShown(null)).toBeNull();
  refused({ nextAction: null }, 'transfer_events.shown: status is not a string');
  refused({ status: 'PENDING', failureCode: 3 }, 'transfer_events.shown: failureCode is not a string or absent');
  refused([], 'transfer_events.shown: the value is not an object');
});

it('an event recorded before `shown` was: the shown fields as they are now, with its status, version and time', () => {
  const at = new Date('2024-05-01T09:10:00Z');
  expect(toTransfer(shownAt(BASE, { shown: null, toStatus: 'AUTHORIZED', at }, 1))).toEqual(
    toTransfer({ ...BASE, status: 'AUTHORIZED', version: 1, updatedAt: at }),
  );
});

it("a patch in Prisma's forms: { set }, JSON null and DB null", () => {
  const row = { ...BASE, nextAction: { type: 'THREE_DS_CHALLENGE', redirectUrl: 'https://acs.example/c' } };
  for (const cleared of [Prisma.JsonNull, Prisma.DbNull, { set: null }])
    expect(shownAfter(row, 'AUTHORIZED', { nextAction: cleared as TransferPatch['nextAction'] }).nextAction).toBeNull();
  expect(shownAfter(row, row.status, { refundedAmount: { set: '12.50' } }).refundedAmount).toBe('12.5');
});

it('the view: every field either shown (a version when it changes) or listed as not', () => {
  expect(Object.keys(toTransfer(BASE)).sort()).toEqual([...KEYS, ...Object.keys(NOT_SHOWN)].sort());
});

it('every field of the GraphQL Transfer that can change is in the table (else it does not compile)', () => {
  const { cancelRequestedAt: _left, ...withoutOne } = SHOWN;
  // @ts-expect-error a field an app sees change, left out of the table
  const incomplete: ShownTable = withoutOne;
  expect(Object.keys(incomplete)).not.toContain('cancelRequestedAt');
});
