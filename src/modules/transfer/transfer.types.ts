import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { IsEnum, IsIn, IsISO31661Alpha2, IsOptional, IsString, IsUUID, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { DecimalScalar } from '../../graphql/scalars';
import { DeliveryEstimate } from '../../graphql/pricing.types';
import { Money } from '../../graphql/money.types';
import { AFTER_CURSOR_HINT, type Connection, connectionType } from '../../graphql/relay';
import { DestinationType, RecipientInput } from '../../graphql/recipient.types';
import { TRANSFER_STATUSES } from './transfer.states';
import { SHOWN } from './transfer.shown';
import { FAILURE_CODES, type FailureCode } from '../../shared/failure-codes';

const TransferStatusEnum = Object.fromEntries(TRANSFER_STATUSES.map((s) => [s, s])) as {
  [K in (typeof TRANSFER_STATUSES)[number]]: K;
};
registerEnumType(TransferStatusEnum, {
  name: 'TransferStatus',
  description:
    'PENDING → (ACTION_REQUIRED →) AUTHORIZED → CAPTURED → PAYOUT_PENDING → COMPLETED; or REJECTED (compliance said no before money moved), DECLINED (funding refused), VOIDED (authorization released, or cancelled before it), EXPIRED (quote or authorization window ran out), FAILED (gave up before any money was taken; see failure); money taken that will not reach the recipient goes back: REFUND_PENDING → REFUNDED. COMPLETED, REJECTED, DECLINED, VOIDED, EXPIRED, FAILED and REFUNDED are final.',
  valuesConfig: {
    PENDING: { description: 'Created; checks and the authorization are running in the background. Follow it with transferUpdated.' },
    ACTION_REQUIRED: { description: 'Waiting for the sender: see nextAction (e.g. a 3-D Secure challenge), then call resumeTransfer.' },
    AUTHORIZED: {
      description:
        'The funds are authorized (held) but not taken yet: back-office may captureTransfer, the owner or back-office may voidTransfer.',
    },
    CAPTURED: { description: 'The funds were taken; the payout to the recipient has not started yet.' },
    PAYOUT_PENDING: { description: 'The remittances platform is paying the recipient out.' },
    COMPLETED: { description: 'Final: the recipient was paid.' },
    REJECTED: { description: 'Final: compliance refused the transfer before any money moved (failure.code COMPLIANCE_REJECTED).' },
    DECLINED: { description: 'Final: a check failed or the funding source declined the authorization (see failure).' },
    VOIDED: { description: 'Final: the authorization was released; nothing was taken.' },
    EXPIRED: { description: 'Final: the quote or the capture window ran out before the next step (see failure).' },
    FAILED: { description: 'Final: the service gave up before any money was taken, e.g. an upstream refused a request (see failure).' },
    REFUND_PENDING: {
      description:
        'The money taken is on its way back to the sender: the payout failed, or the sender cancelled after the capture (see failure and refunds).',
    },
    REFUNDED: { description: 'Final: every cent taken went back to the sender (refundedAmount equals capturedAmount).' },
  },
});

export enum NextActionType {
  THREE_DS_CHALLENGE = 'THREE_DS_CHALLENGE',
}
registerEnumType(NextActionType, {
  name: 'NextActionType',
  description: 'What the sender must do before the transfer can continue.',
  valuesConfig: {
    THREE_DS_CHALLENGE: {
      description:
        "Open nextAction.redirectUrl (3-D Secure challenge of the card issuer); once it is completed (the page sends the browser to createTransfer's threeDSReturnUrl, if given), call resumeTransfer.",
    },
  },
});

export enum FundingType {
  CARD = 'CARD',
  BANK_ACCOUNT = 'BANK_ACCOUNT',
  ACCOUNT_TOKEN = 'ACCOUNT_TOKEN',
}
registerEnumType(FundingType, {
  name: 'FundingType',
  description:
    'How the sender pays: CARD (token from the tokenizer) or BANK_ACCOUNT (raw details). ACCOUNT_TOKEN (a linked account) is no longer offered: it names transfers made before.',
  valuesConfig: {
    CARD: {
      description:
        'A card, by the token UUID from the client-side tokenizer (funding.cardToken), that the caller checked with checkCard within CARD_CHECK_MAX_AGE_S (else NOT_FOUND). Checked again before authorization (possibly with 3-D Secure) unless that checkCard was APPROVED for the same person within CARD_CHECK_REUSE_S.',
    },
    BANK_ACCOUNT: { description: 'A bank account by its raw details (funding.bankAccount).' },
    ACCOUNT_TOKEN: {
      description:
        'A bank account linked with checkBankAccount(linked), by its accountToken: transfers made before it stopped being offered. createTransfer refuses it (BAD_USER_INPUT, extensions.reason FUNDING_NOT_OFFERED).',
      deprecationReason: 'A linked account can only be pulled from: the gateway pays no recipient from it. Fund with CARD or BANK_ACCOUNT.',
    },
  },
});

const ALPHA2 = { message: '$property must be an ISO 3166-1 alpha-2 code such as US' };

@InputType({ description: 'A bank account for BANK_ACCOUNT funding (US: ABA routing number).' })
export class FundingBankAccountInput {
  @Field({ description: 'SAVINGS or CHECKING' })
  @IsIn(['SAVINGS', 'CHECKING'], { message: 'accountType must be SAVINGS or CHECKING' })
  accountType!: string;
  @Field({ description: 'Account number: 4 to 34 letters or digits, no spaces. Never echoed back.' })
  @Matches(/^[A-Za-z0-9]{4,34}$/, { message: 'accountNumber must be 4 to 34 letters or digits' })
  accountNumber!: string;
  @Field({ description: 'ABA routing number: 9 digits.' })
  @Matches(/^\d{9}$/, { message: 'routingNumber must be a 9-digit ABA routing number' })
  routingNumber!: string;
  @Field({ defaultValue: 'US', description: 'ISO 3166-1 alpha-2 country of the account (default "US").' })
  @IsISO31661Alpha2(ALPHA2)
  countryCode!: string;
}

@InputType({ description: 'How the sender pays: exactly the field of its type.' })
export class FundingInput {
  @Field(() => FundingType, {
    description:
      'CARD or BANK_ACCOUNT; give the field of that type (BAD_USER_INPUT when it is missing). ACCOUNT_TOKEN is refused (BAD_USER_INPUT, extensions.reason FUNDING_NOT_OFFERED).',
  })
  @IsEnum(FundingType, { message: 'type must be CARD, BANK_ACCOUNT or ACCOUNT_TOKEN' })
  type!: FundingType;
  @Field({ nullable: true, description: 'CARD: the card token UUID from the tokenizer (checked with checkCard).' })
  @IsOptional()
  @IsUUID('all', { message: 'cardToken must be the token UUID from the tokenizer' })
  cardToken?: string;
  @Field(() => FundingBankAccountInput, { nullable: true, description: 'BANK_ACCOUNT: the raw account details.' })
  @IsOptional()
  @ValidateNested()
  bankAccount?: FundingBankAccountInput;
  @Field({
    nullable: true,
    description: 'ACCOUNT_TOKEN: the accountToken from checkBankAccount(linked). Not offered any more (see FundingType.ACCOUNT_TOKEN).',
    deprecationReason: 'ACCOUNT_TOKEN funding is not offered: fund with CARD or BANK_ACCOUNT.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 128, { message: 'accountToken must be the accountToken returned by checkBankAccount (1 to 128 characters)' })
  accountToken?: string;
}

const TRANSFER_ID_MESSAGE = 'transferId must be the id of a transfer (a UUID)';
const KEY = { message: 'idempotencyKey must be 8 to 128 letters, digits, "-", "_" or ":"' };
const KEY_RE = /^[A-Za-z0-9_:-]{8,128}$/;
const IDEMPOTENCY_KEY_DOC =
  'Your key for this request: 8 to 128 letters, digits, "-", "_" or ":" (e.g. a UUID), new for every new intent and reused on every retry of it. Keys are per caller and operation and remembered for at least 24 hours.';

@InputType({
  description:
    "A new transfer: a quote, the KYC-approved sender (the person createPerson stored: nothing about the sender is asked again), the recipient and the funding. The customer's IP is taken from the request.",
})
export class CreateTransferInput {
  @Field({
    description:
      IDEMPOTENCY_KEY_DOC +
      ' A retry with the same key and arguments returns the same transfer (no second transfer); the same key with other arguments is IDEMPOTENCY_KEY_REUSED; while the first request still runs, IDEMPOTENCY_IN_PROGRESS.',
  })
  @Matches(KEY_RE, KEY)
  idempotencyKey!: string;
  @Field(() => ID, {
    description:
      "A quote of yours from createQuote, with a sourceAmount, not expired (QUOTE_EXPIRED) and not used by another transfer (QUOTE_ALREADY_USED), priced for a payment method of the funding (CARD: CARD, CREDIT_CARD, DEBIT_CARD or AFT; BANK_ACCOUNT: BANK_ACCOUNT or ACH; else BAD_USER_INPUT). Someone else's quote is NOT_FOUND.",
  })
  @IsUUID('all', { message: 'quoteId must be the id returned by createQuote' })
  quoteId!: string;
  @Field(() => ID, {
    description:
      "The sender: the id createPerson answered with status APPROVED (another caller's person is NOT_FOUND). The sender's name, contact, identification and address are the person's; it must be an INDIVIDUAL with all of them (else BAD_USER_INPUT).",
  })
  @IsUUID('all', { message: 'personId must be the id returned by createPerson' })
  personId!: string;
  @Field(() => RecipientInput, {
    nullable: true,
    description: 'Who receives the money, and where. Give exactly one of recipient and recipientId (both or neither: BAD_USER_INPUT).',
  })
  @IsOptional()
  @ValidateNested()
  recipient?: RecipientInput | null;
  @Field(() => ID, {
    nullable: true,
    description:
      "Instead of recipient: a recipient you saved with createRecipient (another caller's, or one deleted, is NOT_FOUND). It is copied into the transfer when it is created: deleting it later does not change the transfer.",
  })
  @IsOptional()
  @IsUUID('all', { message: 'recipientId must be the id returned by createRecipient' })
  recipientId?: string | null;
  @Field(() => FundingInput, { description: 'How the sender pays.' }) @ValidateNested() funding!: FundingInput;
  @Field(() => String, {
    nullable: true,
    description:
      "Where the card issuer's 3-D Secure page sends the cardholder's browser when the challenge is done (your app's page or universal link), if the card asks for one: an https URL on a host this service accepts (THREE_DS_RETURN_URL_HOSTS; outside production also http(s) on a loopback address); anything else is BAD_USER_INPUT before any other check. Optional: without it the page stays on the issuer when done. nextAction.redirectUrl then carries it.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048, { message: 'threeDSReturnUrl must be at most 2048 characters' })
  threeDSReturnUrl?: string | null;
}

@InputType({ description: 'Continue a transfer in ACTION_REQUIRED after the sender completed the challenge.' })
export class ResumeTransferInput {
  @Field(() => ID, { description: 'The transfer (in ACTION_REQUIRED; otherwise INVALID_STATE).' })
  @IsUUID('all', { message: TRANSFER_ID_MESSAGE })
  transferId!: string;
  @Field({ description: IDEMPOTENCY_KEY_DOC + ' A retry with the same key answers the transfer as it is now, without resuming twice.' })
  @Matches(KEY_RE, KEY)
  idempotencyKey!: string;
}

@InputType({ description: 'Take (capture) the authorized funds of a transfer.' })
export class CaptureTransferInput {
  @Field(() => ID, { description: 'The transfer (in AUTHORIZED; otherwise INVALID_STATE).' })
  @IsUUID('all', { message: TRANSFER_ID_MESSAGE })
  transferId!: string;
  @Field({ description: IDEMPOTENCY_KEY_DOC + ' A retry with the same key captures once.' }) @Matches(KEY_RE, KEY) idempotencyKey!: string;
  @Field(() => DecimalScalar, {
    nullable: true,
    description: 'Partial capture in the send currency; omitted = the authorized amount. Never more.',
  })
  @IsOptional()
  amount?: string;
}

@InputType({ description: 'Release the authorization of a transfer before capture.' })
export class VoidTransferInput {
  @Field(() => ID, { description: 'The transfer (in AUTHORIZED and not being captured; otherwise INVALID_STATE).' })
  @IsUUID('all', { message: TRANSFER_ID_MESSAGE })
  transferId!: string;
  @Field({ description: IDEMPOTENCY_KEY_DOC + ' A retry with the same key voids once.' }) @Matches(KEY_RE, KEY) idempotencyKey!: string;
}

@InputType({
  description:
    'Take a transfer back: before the capture the authorization is released (VOIDED); after it, within cancellableUntil and before the payout completes, the platform is asked to stop the payout and the money goes back (REFUND_PENDING → REFUNDED).',
})
export class CancelTransferInput {
  @Field(() => ID, { description: 'The transfer (yours; another customer’s is NOT_FOUND).' })
  @IsUUID('all', { message: TRANSFER_ID_MESSAGE })
  transferId!: string;
  @Field({ description: IDEMPOTENCY_KEY_DOC + ' A retry with the same key cancels once.' }) @Matches(KEY_RE, KEY) idempotencyKey!: string;
}

@InputType({ description: 'Give money taken by a transfer back to its sender (back-office/admin): all that is left, or part of it.' })
export class RefundTransferInput {
  @Field(() => ID, { description: 'The transfer (COMPLETED, or REFUND_PENDING whose automatic refund was refused).' })
  @IsUUID('all', { message: TRANSFER_ID_MESSAGE })
  transferId!: string;
  @Field({ description: IDEMPOTENCY_KEY_DOC + ' A retry with the same key refunds once.' }) @Matches(KEY_RE, KEY) idempotencyKey!: string;
  @Field(() => DecimalScalar, {
    nullable: true,
    description: 'In the send currency; omitted = all that is left (captured less refunded). More than that: BAD_USER_INPUT.',
  })
  @IsOptional()
  amount?: string;
  @Field({ description: 'Why (kept in the audit trail and on the refund), 3 to 500 characters: goodwill, a dispute, …' })
  @IsString()
  @Length(3, 500, { message: 'reason must be 3 to 500 characters' })
  reason!: string;
}

const RefundStatusEnum = { PENDING: 'PENDING', SUCCEEDED: 'SUCCEEDED', FAILED: 'FAILED' } as const;
registerEnumType(RefundStatusEnum, {
  name: 'RefundStatus',
  description: 'Where a refund stands.',
  valuesConfig: {
    PENDING: { description: 'Asked for; an outcome not known yet is retried with the same refund id (never a second refund).' },
    SUCCEEDED: { description: 'The money went back to the sender.' },
    FAILED: { description: 'The gateway refused it: a person looks at it (back-office refundsNeedingAttention).' },
  },
});
const RefundKindEnum = { PAYOUT_FAILED: 'PAYOUT_FAILED', CANCELLED: 'CANCELLED', BACKOFFICE: 'BACKOFFICE' } as const;
registerEnumType(RefundKindEnum, {
  name: 'RefundKind',
  description: 'Why the money goes back.',
  valuesConfig: {
    PAYOUT_FAILED: { description: 'The platform could not pay the recipient out.' },
    CANCELLED: { description: 'The sender cancelled after the capture.' },
    BACKOFFICE: { description: 'Back-office refunded it (goodwill, a dispute); the reason says why.' },
  },
});

@ObjectType({
  simpleResolvers: true,
  description: 'Money given back to the sender of a transfer (one of possibly several partial refunds).',
})
export class Refund {
  @Field(() => ID, { description: 'The refund id (also the id the gateway knows it by).' }) id!: string;
  @Field(() => Money, { description: 'How much, in the send currency.' }) amount!: Money;
  @Field(() => RefundStatusEnum, { description: 'Where it stands.' }) status!: string;
  @Field(() => RefundKindEnum, { description: 'Why.' }) kind!: string;
  @Field({ description: 'Why, in words (the reason back-office gave, or what happened).' }) reason!: string;
  @Field(() => String, { nullable: true, description: 'Back-office and admins: who asked (a user id, or worker). Null for customers.' })
  requestedBy!: string | null;
  @Field({ description: 'When it was asked for.' }) createdAt!: Date;
  @Field({ description: 'When it last changed.' }) updatedAt!: Date;
}

const RefundAttentionReasonEnum = {
  REFUND_FAILED: 'REFUND_FAILED',
  REFUND_UNSETTLED: 'REFUND_UNSETTLED',
  MONEY_BACK_STALLED: 'MONEY_BACK_STALLED',
} as const;
export type RefundAttentionReason = keyof typeof RefundAttentionReasonEnum;
registerEnumType(RefundAttentionReasonEnum, {
  name: 'RefundAttentionReason',
  description: 'Why money on its way back needs a person.',
  valuesConfig: {
    REFUND_FAILED: { description: 'The gateway refused the refund.' },
    REFUND_UNSETTLED: { description: 'The refund’s outcome is still unknown after 15 minutes (the gateway keeps failing).' },
    MONEY_BACK_STALLED: {
      description:
        'The transfer has waited in REFUND_PENDING for 15 minutes with no refund under way: the platform has not said the payout stopped, or reported it paid after the money went back.',
    },
  },
});

@ObjectType({
  simpleResolvers: true,
  description:
    'Money on its way back that needs a person: a refund refused or unsettled for long, or a transfer stalled in REFUND_PENDING.',
})
export class RefundAttention {
  @Field(() => RefundAttentionReasonEnum, { description: 'Why it needs a person.' }) reason!: RefundAttentionReason;
  @Field(() => ID, { description: 'The transfer.' }) transferId!: string;
  @Field(() => TransferStatusEnum, { description: 'The transfer’s status.' }) transferStatus!: string;
  @Field(() => Refund, { nullable: true, description: 'The refund concerned; null for MONEY_BACK_STALLED.' }) refund!: Refund | null;
  @Field({ description: 'Since when: the refund’s or the transfer’s last change.' }) since!: Date;
  @Field(() => String, { nullable: true, description: 'The last error seen (kind and code only).' }) lastError!: string | null;
  @Field(() => Int, { description: 'Attempts made.' }) attempts!: number;
}

@InputType({
  description:
    'List filter (all given fields must match): status, creation date range (inclusive from, exclusive to), owner (back-office/admin; a customer may pass only its own id, another is FORBIDDEN), corridor (source currency, destination currency, destination country) and sendAmount range (inclusive).',
})
export class TransferFilter {
  @Field(() => [TransferStatusEnum], { nullable: true, description: 'Only transfers in one of these statuses.' })
  @IsOptional()
  @IsIn(TRANSFER_STATUSES, { each: true, message: 'status must list TransferStatus values such as PENDING or COMPLETED' })
  status?: string[];
  @Field({ nullable: true, description: 'Only transfers created at or after this time (inclusive).' }) @IsOptional() createdFrom?: Date;
  @Field({ nullable: true, description: 'Only transfers created before this time (exclusive).' }) @IsOptional() createdTo?: Date;
  @Field(() => ID, {
    nullable: true,
    description: "Back-office/admin: only this customer's transfers. A customer may pass only its own id (another → FORBIDDEN).",
  })
  @IsOptional()
  @IsString()
  @Length(1, 128, { message: 'ownerId must be 1 to 128 characters' })
  ownerId?: string;
  @Field({ nullable: true, description: 'Corridor: the send currency (ISO 4217), e.g. USD.' })
  @IsOptional()
  @Matches(/^[A-Za-z]{3}$/, { message: 'sourceCurrency must be an ISO 4217 code such as USD' })
  sourceCurrency?: string;
  @Field({ nullable: true, description: 'Corridor: the receive currency (ISO 4217), e.g. BRL.' })
  @IsOptional()
  @Matches(/^[A-Za-z]{3}$/, { message: 'destinationCurrency must be an ISO 4217 code such as BRL' })
  destinationCurrency?: string;
  @Field({ nullable: true, description: "Corridor: the recipient's country (ISO 3166-1 alpha-2), e.g. BR." })
  @IsOptional()
  @IsISO31661Alpha2({ message: 'destinationCountry must be an ISO 3166-1 alpha-2 code such as BR' })
  destinationCountry?: string;
  @Field(() => DecimalScalar, { nullable: true, description: 'sendAmount at least this (inclusive), in the send currency.' })
  @IsOptional()
  minSendAmount?: string;
  @Field(() => DecimalScalar, { nullable: true, description: 'sendAmount at most this (inclusive), in the send currency.' })
  @IsOptional()
  maxSendAmount?: string;
  @Field({
    nullable: true,
    description:
      'What a customer reads out on the phone: the receipt reference (7F3A-9C21-0B4E, dashes and case optional), words of the sender’s or recipient’s name (all must match, whole words, accents ignored: "maria silva"), an e-mail, a PIX key or wallet id, the last four digits of the card or account, or the platform’s transaction id. 1 to 200 characters.',
  })
  @IsOptional()
  @Length(1, 200, { message: 'search must be 1 to 200 characters' })
  search?: string;
}

@ObjectType({ simpleResolvers: true, description: 'What the sender must do before the transfer can continue (status ACTION_REQUIRED).' })
export class NextAction {
  @Field(() => NextActionType, { description: 'The kind of action.' }) type!: NextActionType;
  @Field(() => String, {
    nullable: true,
    description:
      "Open this page; once the challenge is completed (it sends the browser to createTransfer's threeDSReturnUrl, if given), call resumeTransfer.",
  })
  redirectUrl!: string | null;
}

const FAILURE_CODE_LIST = Object.keys(FAILURE_CODES) as FailureCode[];
const FailureCodeEnum = Object.fromEntries(FAILURE_CODE_LIST.map((c) => [c, c])) as { [K in FailureCode]: K };
registerEnumType(FailureCodeEnum, {
  name: 'FailureCode',
  description:
    "Why a transfer ended without paying out, or why its money is going back (Transfer.failure.code): stable, for an app to branch on; Failure.message says it to the customer in the request's language.",
  valuesConfig: Object.fromEntries(FAILURE_CODE_LIST.map((c) => [c, { description: FAILURE_CODES[c] }])),
});

/**
 * Why a transfer ended without paying out. `message` and `detail` are resolved per request (FailureResolver): the
 * customer message in the request's language, and the text recorded with the code for staff.
 */
@ObjectType({ simpleResolvers: true, description: 'Why a transfer ended without paying out, or why its money is going back.' })
export class Failure {
  @Field(() => FailureCodeEnum, { description: 'Stable reason code: branch on it.' })
  code!: FailureCode;
  /** Not fields: the code as recorded (OTHER's original) and the text recorded with it (Failure.detail). */
  recordedCode!: string;
  recordedMessage!: string | null;
}

@ObjectType({
  simpleResolvers: true,
  description: 'One entry of the audit trail: every recorded change of the transfer (platform facts included), oldest first.',
})
export class TransferEventNode {
  @Field(() => Int, {
    description: "Position in the audit trail: 1, 2, … for every recorded change (= the transfer's lastEventSeq after it).",
  })
  seq!: number;
  @Field(() => Int, {
    nullable: true,
    description:
      'The transfer version this change produced, when it changed what an app shows; null for a fact recorded for the audit trail only (no version, no subscription message).',
  })
  version!: number | null;
  @Field(() => TransferStatusEnum, { nullable: true, description: 'The status before; null for the creation.' }) fromStatus!: string | null;
  @Field(() => TransferStatusEnum, { description: 'The status after (equal to fromStatus when only details changed).' }) toStatus!: string;
  @Field({ description: 'mutation | worker | webhook | timer' }) cause!: string;
  @Field(() => String, {
    nullable: true,
    description:
      "Who caused it. Back-office and admins: the caller's user id for mutations, or worker, webhook, timer. Customers: you (your own request), support (a staff member's) or system (the service's own work).",
  })
  actor!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'The upstream reference behind it (a platform transaction id or a webhook delivery id), when there is one.',
  })
  upstreamRef!: string | null;
  @Field(() => String, { nullable: true, description: 'What happened, e.g. authorize, capture, void, compliance Approved.' }) action!:
    string | null;
  @Field(() => String, {
    nullable: true,
    description:
      'The value a platform fact reported (its transaction, payout or compliance status, e.g. PaymentCaptured, DECLINED, Approved); null for other events.',
  })
  value!: string | null;
  @Field({ description: 'When it happened.' }) at!: Date;
}

@ObjectType({
  simpleResolvers: true,
  description:
    'A change the transfer refused and that had no effect: an out-of-order or late upstream fact, or a request its status did not allow (back-office).',
})
export class TransferRefusalNode {
  @Field(() => TransferStatusEnum, { description: 'The status at the time.' }) fromStatus!: string;
  @Field(() => TransferStatusEnum, { description: 'The status the change asked for.' }) toStatus!: string;
  @Field({ description: 'mutation | worker | webhook | timer' }) cause!: string;
  @Field(() => String, { nullable: true, description: 'Who asked: the user id for mutations, or worker, webhook, timer.' }) actor!:
    string | null;
  @Field({ description: 'Why it was refused, e.g. "COMPLETED is terminal" or "CAPTURED → AUTHORIZED is not a transition".' })
  reason!: string;
  @Field(() => String, { nullable: true, description: 'What the change was, e.g. capture, void, platform Completed.' }) action!:
    string | null;
  @Field({ description: 'When it was refused.' }) at!: Date;
}

export const TransferEventConnection = connectionType(TransferEventNode, {
  name: 'TransferEventConnection',
  description: "A page of a transfer's audit trail, oldest first (Relay connection).",
  edges: 'The events of this page.',
  pageInfo: 'Where this page sits in the whole trail.',
  edge: {
    name: 'TransferEventEdge',
    description: 'An edge of a transfer event connection.',
    cursor: AFTER_CURSOR_HINT,
    node: 'The event.',
  },
  simpleResolvers: true,
});
export type TransferEventConnection = Connection<TransferEventNode>;

@ObjectType({
  simpleResolvers: true,
  description: 'Who sends the money: the KYC person the transfer was created for, as it was then (a snapshot).',
})
export class TransferSender {
  @Field(() => ID, { description: 'The KYC person (createPerson).' }) personId!: string;
  @Field({ description: 'First and last name.' }) name!: string;
}

@ObjectType({
  simpleResolvers: true,
  description: 'Who receives the money, as given when the transfer was created (a snapshot: history never changes).',
})
export class TransferRecipient {
  @Field({ description: 'First and last name.' }) name!: string;
  @Field(() => DestinationType, { description: 'WALLET or PIX.' }) destinationType!: string;
  @Field({
    description:
      'Where the money goes, masked for display: a PIX e-mail as m•••@example.com, other PIX keys and wallet ids by their last four characters (•••• 1234).',
  })
  destination!: string;
  @Field(() => ID, {
    nullable: true,
    description:
      'The saved recipient (createRecipient) the transfer was created from; null when the recipient was given inline. It may have been deleted since: the transfer keeps its own copy.',
  })
  recipientId!: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'How the sender paid, as a receipt shows it.' })
export class ReceiptFunding {
  @Field(() => FundingType, { description: 'CARD, BANK_ACCOUNT or ACCOUNT_TOKEN.' }) type!: string;
  @Field(() => String, { nullable: true, description: 'The last four digits of the card or account, when known.' }) lastFour!:
    string | null;
}

@ObjectType({ simpleResolvers: true, description: 'Where a customer gets help: the operator’s support contact (SUPPORT_*).' })
export class SupportContact {
  @Field({ description: 'The operator, as the customer knows it.' }) name!: string;
  @Field(() => String, { nullable: true, description: 'Support e-mail.' }) email!: string | null;
  @Field(() => String, { nullable: true, description: 'Support phone (E.164).' }) phone!: string | null;
  @Field(() => String, { nullable: true, description: 'Support page.' }) url!: string | null;
}

@ObjectType({
  simpleResolvers: true,
  description:
    'What the customer keeps: every figure shown before paying, the parties, when the money should arrive, until when it can be cancelled and where to get help. The same values as the transfer’s own fields, never recomputed.',
})
export class Receipt {
  @Field({
    description:
      'A reference a person can read out (e.g. to support): 12 characters in groups of four, e.g. 7F3A-9C21-0B4E. Back-office finds the transfer by it (TransferFilter.search).',
  })
  reference!: string;
  @Field({ description: 'When the transfer was made.' }) createdAt!: Date;
  @Field(() => TransferStatusEnum, { description: 'Where the transfer is now.' }) status!: string;
  @Field(() => TransferSender, { description: 'Who sends.' }) sender!: TransferSender;
  @Field(() => TransferRecipient, { description: 'Who receives, and where (masked).' }) recipient!: TransferRecipient;
  @Field(() => ReceiptFunding, { description: 'How the sender paid.' }) funding!: ReceiptFunding;
  @Field(() => Money, { description: 'The amount sent (Transfer.sendAmount).' }) sendAmount!: Money;
  @Field(() => Money, { description: 'The fee (Transfer.fee).' }) fee!: Money;
  @Field(() => Money, { description: 'What the sender paid in all: sendAmount + fee (Transfer.total).' }) total!: Money;
  @Field(() => DecimalScalar, { description: 'The exchange rate (Transfer.rate).' }) rate!: string;
  @Field(() => Money, { description: 'What the recipient gets (Transfer.receiveAmount).' }) receiveAmount!: Money;
  @Field(() => DeliveryEstimate, { nullable: true, description: 'When the money should be available (Transfer.deliveryEstimate).' })
  deliveryEstimate!: DeliveryEstimate | null;
  @Field(() => Date, { nullable: true, description: 'Until when it can be cancelled for a full refund (Transfer.cancellableUntil).' })
  cancellableUntil!: Date | null;
  @Field(() => Money, { description: 'What went back to the sender so far (Transfer.refundedAmount).' }) refundedAmount!: Money;
  @Field(() => SupportContact, { description: 'Where to get help.' }) support!: SupportContact;
}

@ObjectType({ simpleResolvers: true, description: 'A cross-border transfer.' })
export class Transfer {
  @Field(() => ID, { description: 'The transfer id (a UUID).' }) id!: string;
  @Field(() => TransferStatusEnum, { description: 'Where the transfer is now.' }) status!: string;
  @Field(() => Int, {
    description: `+1 on every change an app shows: ${Object.keys(SHOWN).join(', ')} (the amounts and the rate are fixed at creation). transferUpdated / myTransfers send one message per version. Platform facts that change none of these (complianceStatus, platformStatus, payout progress) are recorded in \`events\` without moving it.`,
  })
  version!: number;
  @Field(() => Int, { description: 'Back-office: the seq of the latest audit event (+1 on every recorded change, shown or not).' })
  lastEventSeq!: number;
  @Field(() => Money, {
    description: 'The amount sent, in the source currency (from the quote): what the recipient’s amount is converted from.',
  })
  sendAmount!: Money;
  @Field(() => Money, { description: 'What the service charges, in the source currency, exactly as quoted.' }) fee!: Money;
  @Field(() => Money, {
    description: 'What the sender pays in all: sendAmount + fee, exactly — the amount the gateway takes from the card or account.',
  })
  total!: Money;
  @Field(() => DeliveryEstimate, { nullable: true, description: 'When the money should be available to the recipient, as quoted.' })
  deliveryEstimate!: DeliveryEstimate | null;
  @Field(() => Money, { description: 'What the recipient gets, in the destination currency (from the quote).' }) receiveAmount!: Money;
  @Field(() => DecimalScalar, { description: 'Units of the destination currency per unit of the source currency, locked by the quote.' })
  rate!: string;
  @Field(() => Money, { nullable: true, description: 'What was captured (the total; a partial capture is smaller).' })
  capturedAmount!: Money | null;
  @Field(() => Money, { description: 'What went back to the sender: the sum of the refunds that succeeded (0 when none).' })
  refundedAmount!: Money;
  @Field(() => NextAction, { nullable: true, description: 'What the sender must do now; set only in ACTION_REQUIRED.' })
  nextAction!: NextAction | null;
  @Field(() => Failure, {
    nullable: true,
    description:
      'Why it ended, or why the money is going back: set in REJECTED, DECLINED, VOIDED, EXPIRED, FAILED, REFUND_PENDING and REFUNDED.',
  })
  failure!: Failure | null;
  @Field(() => ID, { description: 'Who owns it (the customer).' }) ownerId!: string;
  @Field(() => FundingType, { description: 'How the sender pays.' }) fundingType!: string;
  @Field(() => String, { nullable: true, description: "The recipient's country (ISO 3166-1 alpha-2): the corridor's destination." })
  destinationCountry!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "The platform's compliance status, when reported (a platform fact: its changes alone do not move version).",
  })
  complianceStatus!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "The platform's transaction status, when reported (a platform fact: its changes alone do not move version).",
  })
  platformStatus!: string | null;
  @Field({ description: 'When it was created.' }) createdAt!: Date;
  @Field({ description: 'When version last moved (the last change an app shows).' }) updatedAt!: Date;
  @Field(() => Date, {
    nullable: true,
    description: 'When the cancellation was asked for (cancelTransfer, by the owner or back-office); null when it was not.',
  })
  cancelRequestedAt!: Date | null;
  /** Not a field: with the others, what cancellableUntil is worked out from. */
  payoutStatus!: string | null;
}

export const TransferConnection = connectionType(Transfer, {
  name: 'TransferConnection',
  description: 'A page of transfers, newest first (Relay connection).',
  edges: 'The transfers of this page.',
  pageInfo: 'Where this page sits in the whole list.',
  edge: { name: 'TransferEdge', description: 'An edge of a transfer connection.', cursor: AFTER_CURSOR_HINT, node: 'The transfer.' },
  simpleResolvers: true,
});
export type TransferConnection = Connection<Transfer>;
