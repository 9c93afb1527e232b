import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { requireCaller } from '../../graphql/auth-checker';
import { connectionOf, decodeKeyset, decodeSeq, keysetCursor, PageArgs, pageSize, seqCursor } from '../../graphql/relay';

import { isStaff, type Caller } from '../../auth/auth.types';
import { forbidden } from '../../shared/errors';
import { eventDetail, transferDetails } from './transfer.columns';
import { REFUSALS_SHOWN, type TransferLoaders } from './transfer.loaders';
import { refundView, TransferService } from './transfer.service';
import type { TransferRow } from './transfer.repository';
import { LIST_REPLAY_LIMIT, transferSubscriptionsFor } from './transfer.subscriptions';
import {
  CancelTransferInput,
  CaptureTransferInput,
  CreateTransferInput,
  Receipt,
  Refund,
  RefundAttention,
  RefundTransferInput,
  ResumeTransferInput,
  Transfer,
  TransferConnection,
  TransferEventConnection,
  TransferRecipient,
  TransferRefusalNode,
  TransferSender,
  TransferFilter,
  VoidTransferInput,
} from './transfer.types';
import { partiesOf, toTransfer } from './transfer.view';
import { referenceOf } from './transfer.search';

/** The operator's support contact, as every receipt shows it. */
interface SupportContactView {
  name: string;
  email: string | null;
  phone: string | null;
  url: string | null;
}

/** The parties of a transfer view (what a transfer recorded at creation never changes). */
const partiesByView = new WeakMap<Transfer, Promise<ReturnType<typeof partiesOf>>>();

@Resolver(() => Transfer)
export class TransferResolver {
  constructor(
    private readonly service: TransferService,
    /** The request's batched reads (transfer.loaders.ts). */
    private readonly loaders: (ctx: object) => TransferLoaders,
    private readonly support: SupportContactView,
  ) {}

  @Authorized()
  @Query(() => Transfer, {
    nullable: true,
    description: "A transfer: customers see their own (another's id is NOT_FOUND); back-office and admin see all.",
  })
  async transfer(@Arg('id', () => ID, { description: 'The transfer id.' }) id: string, @Ctx() ctx: GraphQLContext): Promise<Transfer> {
    return toTransfer(await this.service.getVisible(requireCaller(ctx), id));
  }

  @Authorized()
  @Query(() => TransferConnection, {
    description:
      "Transfers, newest first (Relay connection; stable cursors on createdAt + id: `first` 1 to 100, default 20; pass pageInfo.endCursor as `after`). Customers: only their own; back-office and admins: all, or one owner's with filter.ownerId.",
  })
  async transfers(
    @Args() page: PageArgs,
    @Arg('filter', () => TransferFilter, { nullable: true, description: 'Optional filters; all given ones must match.' })
    filter: TransferFilter | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TransferConnection> {
    const size = pageSize(page.first);
    const r = await this.service.list(requireCaller(ctx), { after: page.after ? decodeKeyset(page.after) : null, filter }, size);
    const edges = r.rows.map((t) => ({ cursor: keysetCursor(t), node: toTransfer(t) }));
    return connectionOf(edges, r.hasNextPage, Boolean(page.after));
  }

  @FieldResolver(() => TransferEventConnection, {
    description: 'The audit trail, oldest first (Relay connection: `first` 1 to 100, default 50; `after` an endCursor of this list).',
  })
  async events(@Root() t: Transfer, @Args() page: PageArgs, @Ctx() ctx: GraphQLContext): Promise<TransferEventConnection> {
    const first = pageSize(page.first, 50);
    const afterSeq = decodeSeq(page.after);
    const p = await this.loaders(ctx).events.load({ transferId: t.id, afterSeq, first });
    const caller = requireCaller(ctx);
    const edges = p.events.map((e) => ({
      cursor: seqCursor(e.seq),
      node: {
        seq: e.seq,
        version: e.version,
        fromStatus: e.fromStatus,
        toStatus: e.toStatus,
        cause: e.cause,
        actor: actorShownTo(caller, e.actor, e.cause),
        upstreamRef: e.upstreamRef,
        ...actionAndValue(e.detail),
        at: e.at,
      },
    }));
    return connectionOf(edges, p.hasNextPage, afterSeq > 0);
  }

  @FieldResolver(() => TransferSender, { description: 'Who sends the money (the KYC person it was created for), as it was then.' })
  async sender(@Root() t: Transfer, @Ctx() ctx: GraphQLContext): Promise<TransferSender> {
    return (await this.partiesOf(t, ctx)).sender;
  }

  @FieldResolver(() => TransferRecipient, {
    description: 'Who receives the money and where (masked for display), as given when the transfer was created.',
  })
  async recipient(@Root() t: Transfer, @Ctx() ctx: GraphQLContext): Promise<TransferRecipient> {
    return (await this.partiesOf(t, ctx)).recipient;
  }

  @FieldResolver(() => Receipt, {
    description:
      'What the customer keeps: a reference to read out, every figure shown before paying, the parties, the delivery estimate, until when it can be cancelled and the support contact.',
  })
  async receipt(@Root() t: Transfer, @Ctx() ctx: GraphQLContext): Promise<Receipt> {
    const { sender, recipient, funding } = await this.partiesOf(t, ctx);
    return {
      reference: referenceOf(t.id),
      createdAt: t.createdAt,
      status: t.status,
      sender,
      recipient,
      funding,
      sendAmount: t.sendAmount,
      fee: t.fee,
      total: t.total,
      rate: t.rate,
      receiveAmount: t.receiveAmount,
      deliveryEstimate: t.deliveryEstimate,
      cancellableUntil: this.cancellableUntil(t),
      refundedAmount: t.refundedAmount,
      support: this.support,
    };
  }

  /** Both parties of the transfer this view shows, read and parsed once for both fields. */
  private partiesOf(t: Transfer, ctx: GraphQLContext): Promise<ReturnType<typeof partiesOf>> {
    let parties = partiesByView.get(t);
    if (!parties) {
      parties = this.loaders(ctx)
        .parties.load(t.id)
        .then((row) => {
          if (!row) throw new Error(`transfer ${t.id} has no row`);
          return partiesOf(row.personId, transferDetails(row.details));
        })
        .catch((err: unknown) => {
          partiesByView.delete(t); // a failed read (the database away) is not kept: the next execution reads again
          throw err;
        });
      partiesByView.set(t, parties);
    }
    return parties;
  }

  @FieldResolver(() => [Refund], {
    description: 'Money given back to the sender, oldest first (each refund with its own status). Empty when none.',
  })
  async refunds(@Root() t: Transfer, @Ctx() ctx: GraphQLContext): Promise<Refund[]> {
    const staff = isStaff(requireCaller(ctx));
    const steps = await this.loaders(ctx).refunds.load(t.id);
    return steps.map((s) => {
      const r = refundView(s, t.sendAmount.currency);
      return { ...r, requestedBy: staff ? r.requestedBy : null };
    });
  }

  @FieldResolver(() => Date, {
    nullable: true,
    description:
      'Until when the owner may cancel (cancelTransfer): TRANSFER_CANCEL_WINDOW_S (30 minutes by default) from creation, while the payout has not completed; null once it can no longer be cancelled.',
  })
  cancellableUntil(@Root() t: Transfer): Date | null {
    return this.service.cancellableUntil({
      status: t.status as TransferRow['status'],
      cancelRequestedAt: t.cancelRequestedAt,
      createdAt: t.createdAt,
      upstreamTransactionStatus: t.platformStatus,
      payoutStatus: t.payoutStatus,
    });
  }

  // The role is checked in the body: Transfer uses simpleResolvers, which must not carry @Authorized fields.
  @FieldResolver(() => [TransferRefusalNode], {
    description: `Back-office and admins: changes this transfer refused (no effect), newest first, at most ${REFUSALS_SHOWN}: late or out-of-order upstream facts and requests its status did not allow. Customers get FORBIDDEN.`,
  })
  async refusals(@Root() t: Transfer, @Ctx() ctx: GraphQLContext): Promise<TransferRefusalNode[]> {
    if (!isStaff(requireCaller(ctx))) throw forbidden('Only back-office and admins read refusals');
    const rows = await this.loaders(ctx).refusals.load(t.id);
    return rows.map((r) => ({
      fromStatus: r.fromStatus,
      toStatus: r.toStatus,
      cause: r.cause,
      actor: r.actor,
      reason: r.reason,
      action: typeof (r.detail as { action?: unknown } | null)?.action === 'string' ? (r.detail as { action: string }).action : null,
      at: r.at,
    }));
  }

  @Authorized()
  @Mutation(() => Transfer, {
    description:
      'Any authenticated caller, for themselves: creates the transfer (PENDING) and returns at once; checks, authorization and payout continue in the background (follow transferUpdated). Idempotent on idempotencyKey. Errors: BAD_USER_INPUT, NOT_FOUND (quote, person, saved recipient or funding token not yours — the same answer as an unknown one; a card not checked by you with checkCard recently), QUOTE_EXPIRED, QUOTE_ALREADY_USED, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_IN_PROGRESS, RATE_LIMITED.',
  })
  async createTransfer(
    @Arg('input', { description: 'The transfer to create.' }) input: CreateTransferInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Transfer> {
    return toTransfer(await this.service.create(requireCaller(ctx), input, ctx.clientIp));
  }

  @Authorized()
  @Mutation(() => Transfer, {
    description:
      "After the 3-D Secure challenge: asks the gateway whether it is completed (the card check again, no charge) and continues (PENDING, then AUTHORIZED). Owner, back-office or admin (another customer's transfer is NOT_FOUND). INVALID_STATE unless the transfer is in ACTION_REQUIRED; while the challenge is not completed, INVALID_STATE with extensions.reason CHALLENGE_NOT_COMPLETED and nothing changes (no new version). Idempotent on idempotencyKey.",
  })
  async resumeTransfer(
    @Arg('input', { description: 'The transfer and your idempotency key.' }) input: ResumeTransferInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Transfer> {
    return toTransfer(await this.service.resume(requireCaller(ctx), input));
  }

  @Authorized('backoffice', 'admin')
  @Mutation(() => Transfer, {
    description:
      'Back-office/admin: capture the authorization (partial allowed, never more than authorized, once). INVALID_STATE unless AUTHORIZED and not already captured or voided. Idempotent on idempotencyKey. Answers the transfer as it stands when the call returns: CAPTURED once the gateway confirmed it, or still AUTHORIZED when the capture could not finish within the call (an upstream or database fault after it was recorded) — it is then finished in the background, exactly once; follow transferUpdated.',
  })
  async captureTransfer(
    @Arg('input', { description: 'The transfer, the amount and your idempotency key.' }) input: CaptureTransferInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Transfer> {
    return toTransfer(await this.service.capture(requireCaller(ctx), input));
  }

  @Authorized()
  @Mutation(() => Transfer, {
    description:
      "Releases the authorization before capture (owner, back-office or admin; another customer's transfer is NOT_FOUND). INVALID_STATE unless AUTHORIZED and not already captured or voided. Idempotent on idempotencyKey. Answers the transfer as it stands when the call returns: VOIDED once the gateway confirmed it, or still AUTHORIZED when the void could not finish within the call — it is then finished in the background, exactly once; follow transferUpdated.",
  })
  async voidTransfer(
    @Arg('input', { description: 'The transfer and your idempotency key.' }) input: VoidTransferInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Transfer> {
    return toTransfer(await this.service.void(requireCaller(ctx), input));
  }

  @Authorized()
  @Mutation(() => Transfer, {
    description:
      "Takes a transfer back — its owner (another customer's is NOT_FOUND), or back-office/admin. Before the capture the authorization is released (VOIDED); after it, within cancellableUntil and before the payout completes, the platform is asked to stop the payout and the money goes back (REFUND_PENDING, then REFUNDED). Later, or once paid out: INVALID_STATE (extensions.cancellable false) and no upstream call. Idempotent on idempotencyKey. Answers the transfer as it stands when the call returns; follow transferUpdated.",
  })
  async cancelTransfer(
    @Arg('input', { description: 'The transfer and your idempotency key.' }) input: CancelTransferInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Transfer> {
    return toTransfer(await this.service.cancel(requireCaller(ctx), input));
  }

  @Authorized('backoffice', 'admin')
  @Mutation(() => Transfer, {
    description:
      'Back-office/admin: gives money taken by a COMPLETED transfer back to its sender (goodwill, a dispute) — all that is left or part of it, several partial refunds up to what was captured; also a REFUND_PENDING transfer whose automatic refund the gateway refused. A reason is required (audit trail). More than is left: BAD_USER_INPUT (extensions.maxAmount). Idempotent on idempotencyKey; the refund is made once (the gateway knows it by its id). Customers: FORBIDDEN.',
  })
  async refundTransfer(
    @Arg('input', { description: 'The transfer, the amount, the reason and your idempotency key.' }) input: RefundTransferInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Transfer> {
    return toTransfer(await this.service.refund(requireCaller(ctx), input));
  }

  @Authorized('backoffice', 'admin')
  @Query(() => [RefundAttention], {
    description:
      'Back-office/admin: money on its way back that needs a person (at most 100): refunds refused by the gateway (FAILED) or not settled after 15 minutes, oldest first, then transfers stalled in REFUND_PENDING for 15 minutes with no refund under way.',
  })
  async refundsNeedingAttention(): Promise<RefundAttention[]> {
    return (await this.service.refundsNeedingAttention(15 * 60_000, 100)).map((x) => ({
      reason: x.reason,
      transferId: x.transfer.id,
      transferStatus: x.transfer.status,
      refund: x.refund,
      since: x.since,
      lastError: x.lastError,
      attempts: x.attempts,
    }));
  }

  @Authorized()
  @Subscription(() => Transfer, {
    description:
      'The transfer now, then every version in order (none skipped): one message per change an app shows (see Transfer.version). With afterVersion: every version after it first (resume after a reconnect). Completes once the transfer is terminal and its last version was sent, at once if it already was (after the versions after afterVersion, if any). Owner, back-office or admin.',
    subscribe: ({ args, context, info }) =>
      transferSubscriptionsFor(info.schema).subscribe(
        requireCaller(context as GraphQLContext),
        args.transferId as string,
        args.afterVersion as number | undefined,
      ),
  })
  transferUpdated(
    @Root() t: Transfer,
    @Arg('transferId', () => ID, { description: "The transfer to follow (another customer's is NOT_FOUND)." }) _transferId: string,
    @Arg('afterVersion', () => Int, {
      nullable: true,
      description: 'The last version you have: every later version is sent first, then live changes. Omit for the current state first.',
    })
    _afterVersion?: number,
  ): Transfer {
    return t;
  }

  @Authorized()
  @Subscription(() => Transfer, {
    description:
      "A transfer of the list, in its current state, every time it changes what an app shows (a new version; see Transfer.version). Customers: their own (ownerId, if given, must be the caller's own id, else FORBIDDEN). Back-office/admin: every transfer, or one owner's with ownerId. Authorized at subscribe time. No initial snapshot: read `transfers` first, then subscribe with changedSince = the latest updatedAt you read (or, after a reconnect, the latest you received) so that nothing changed in between is missed.",
    subscribe: ({ args, context, info }) =>
      transferSubscriptionsFor(info.schema).subscribeList(
        requireCaller(context as GraphQLContext),
        (args.ownerId as string | undefined) ?? null,
        (args.changedSince as Date | undefined) ?? null,
      ),
  })
  myTransfers(
    @Root() t: Transfer,
    @Arg('ownerId', () => ID, { nullable: true, description: "Back-office/admin: only this customer's transfers." }) _ownerId?: string,
    @Arg('changedSince', () => Date, {
      nullable: true,
      validate: false, // a DateTime scalar (a Date once parsed): nothing for class-validator, which refuses non-objects
      description: `First every transfer of the list updated at or after this instant (oldest change first, current state; at most ${LIST_REPLAY_LIMIT}, beyond that BAD_USER_INPUT: re-read the list), then live changes.`,
    })
    _changedSince?: Date,
  ): Transfer {
    return t;
  }
}

/**
 * Who caused an event, as the caller may see it: back-office and admins see the subject (a user id, or worker,
 * webhook, timer); a customer sees `you` for their own requests, `support` for a staff member's and `system` for the
 * service's own work — staff identities are not a customer's business.
 */
function actorShownTo(caller: Caller, actor: string | null, cause: string): string | null {
  if (caller.role !== 'customer' || actor === null) return actor;
  if (cause !== 'mutation') return 'system';
  return actor === caller.userId ? 'you' : 'support';
}

/** What an audit event did, and the value a platform fact reported. */
function actionAndValue(detail: Parameters<typeof eventDetail>[0]): { action: string | null; value: string | null } {
  const d = eventDetail(detail);
  return { action: d.action, value: d.value };
}
