import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import {
  API_ERROR_CODES,
  FIELD_ERROR_CODES,
  STATE_REASONS,
  type ApiErrorCode,
  type FieldErrorCode,
  type StateReason,
} from '../shared/errors';

/**
 * The error vocabulary in the SDL. GraphQL does not type `extensions`, so the codes an error may carry are enums
 * reached through ErrorExtensions, an object type that no field returns: it documents what `extensions` holds,
 * and code generators that emit the schema's types give apps `ErrorCode`, `FieldErrorCode` and `ErrorExtensions`
 * to read an error with (registered as an orphaned type in schema.ts).
 */

const ERROR_CODE_DESCRIPTIONS: Record<ApiErrorCode, string> = {
  UNAUTHENTICATED: 'No token, or one that does not verify or has expired.',
  FORBIDDEN: "The caller's role may not do this (or, for lists, may not name that owner).",
  BAD_USER_INPUT: 'An argument is invalid; extensions.fields lists the fields concerned (path, code, message) when it is about fields.',
  NOT_FOUND: 'Does not exist — or belongs to another customer (the same answer, on purpose).',
  QUOTE_EXPIRED: 'The quote expired: get a new one.',
  QUOTE_ALREADY_USED: 'The quote already funded another transfer: get a new one.',
  IDEMPOTENCY_KEY_REUSED: 'The idempotencyKey was used with other arguments.',
  IDEMPOTENCY_IN_PROGRESS: "The idempotencyKey's first request is still running: retry shortly with the same key.",
  INVALID_STATE: 'The transfer (or object) is not in a state that allows this.',
  UPSTREAM_UNAVAILABLE: 'An upstream API is out of reach: retry later.',
  UPSTREAM_REJECTED: 'An upstream API refused the request.',
  RATE_LIMITED: 'A budget is spent (HTTP 429): extensions.retryAfterSeconds.',
  SERVICE_UNAVAILABLE: 'Our database is out of reach: retry (a mutation with the same idempotencyKey).',
  INTERNAL_SERVER_ERROR: 'Anything else (logged on our side).',
  GRAPHQL_PARSE_FAILED: 'The document is not valid GraphQL syntax.',
  GRAPHQL_VALIDATION_FAILED: 'The operation is not valid against the schema.',
  BAD_REQUEST: 'The HTTP request is not a GraphQL request this service takes (e.g. both a documentId and a query).',
  OPERATION_RESOLUTION_FAILURE: 'No operation of the document matches the operationName.',
  PERSISTED_QUERY_NOT_FOUND: 'An automatic persisted query hash this service does not know yet: send the query text with it.',
  PERSISTED_QUERY_NOT_SUPPORTED: 'Automatic persisted queries are not taken here.',
  PERSISTED_DOCUMENT_NOT_FOUND: 'A documentId that is not in the manifest this service was deployed with.',
  PERSISTED_DOCUMENT_NOT_ALLOWED: 'TRUSTED_DOCUMENTS=only: a document that is not in the manifest.',
  SUBSCRIPTION_OVER_HTTP: 'A subscription sent over HTTP: subscribe over graphql-ws.',
  TOO_MANY_TOKENS: 'A query limit: the document has too many tokens (extensions.limit).',
  QUERY_TOO_DEEP: 'A query limit: the operation nests too deep (extensions.limit).',
  TOO_MANY_ALIASES: 'A query limit: too many aliases (extensions.limit).',
  TOO_MANY_DIRECTIVES: 'A query limit: too many directives (extensions.limit).',
  QUERY_TOO_COMPLEX: 'A query limit: the operation costs too much (extensions.limit, extensions.cost).',
};

const FIELD_ERROR_CODE_DESCRIPTIONS: Record<FieldErrorCode, string> = {
  REQUIRED: 'Missing or empty, or required by another field given (e.g. funding.cardToken for CARD funding).',
  INVALID: 'Not valid, for a reason no other code names.',
  INVALID_FORMAT: 'Not in the expected format (a pattern, an e-mail address, a UUID, a country or currency code, a decimal, a cursor…).',
  INVALID_CHOICE: 'Not one of the values allowed.',
  TOO_SHORT: 'Shorter than its minimum length.',
  TOO_LONG: 'Longer than its maximum length.',
  TOO_FEW_ITEMS: 'A list with fewer entries than its minimum.',
  TOO_MANY_ITEMS: 'A list with more entries than its maximum.',
  OUT_OF_RANGE: 'A number or an amount outside what is allowed (e.g. not above 0, `first` above 100, a date range backwards).',
  BELOW_MINIMUM: "An amount below the corridor's minimum per transfer (extensions.minAmount).",
  ABOVE_MAXIMUM: 'An amount above the maximum: the corridor per transfer, or what is left to refund (extensions.maxAmount).',
  TOO_MANY_DECIMALS: 'An amount with more decimals than its currency has.',
  MISMATCH: 'Does not go with another field or with what it names (e.g. a quote priced for another country or payment method).',
  NOT_VERIFIED: 'A person (personId) not APPROVED by KYC.',
  INCOMPLETE: 'A person (personId) that lacks what a sender needs (e.g. an address); create the person with it.',
  INVALID_CARDHOLDER_NAME: 'A person (personId) whose name cannot be a cardholder name (at most 35 characters, no title or suffix).',
};

const STATE_REASON_DESCRIPTIONS: Record<StateReason, string> = {
  CHALLENGE_NOT_COMPLETED: 'resumeTransfer before the 3-D Secure challenge is completed: finish it on nextAction.redirectUrl first.',
  CANCEL_ALREADY_REQUESTED: 'cancelTransfer when a cancellation is already under way (read the transfer: it is going back).',
  CANCEL_NOT_POSSIBLE: 'cancelTransfer once the transfer is paid out or has ended.',
  CANCEL_WINDOW_PASSED: 'cancelTransfer after cancellableUntil.',
};

const ErrorCodeEnum = Object.fromEntries(API_ERROR_CODES.map((c) => [c, c])) as { [K in ApiErrorCode]: K };
registerEnumType(ErrorCodeEnum, {
  name: 'ErrorCode',
  description:
    "Every `extensions.code` an error of this API may carry: stable, English, for an app to branch on (the error's `message` is for people, in the request's language). See ErrorExtensions.",
  valuesConfig: Object.fromEntries(API_ERROR_CODES.map((c) => [c, { description: ERROR_CODE_DESCRIPTIONS[c] }])),
});

const FieldErrorCodeEnum = Object.fromEntries(FIELD_ERROR_CODES.map((c) => [c, c])) as { [K in FieldErrorCode]: K };
registerEnumType(FieldErrorCodeEnum, {
  name: 'FieldErrorCode',
  description:
    'What is wrong with one input field of a BAD_USER_INPUT error (`extensions.fields[].code`): stable, for an app to branch on.',
  valuesConfig: Object.fromEntries(FIELD_ERROR_CODES.map((c) => [c, { description: FIELD_ERROR_CODE_DESCRIPTIONS[c] }])),
});

const StateReasonEnum = Object.fromEntries(STATE_REASONS.map((c) => [c, c])) as { [K in StateReason]: K };
registerEnumType(StateReasonEnum, {
  name: 'StateReason',
  description:
    "Why an INVALID_STATE was answered, where an app can act on it or tell the customer (`extensions.reason`; the error's message then says it in the request's language).",
  valuesConfig: Object.fromEntries(STATE_REASONS.map((c) => [c, { description: STATE_REASON_DESCRIPTIONS[c] }])),
});

@ObjectType({
  simpleResolvers: true,
  description: 'One invalid input field of a BAD_USER_INPUT error: an entry of `extensions.fields` (see ErrorExtensions).',
})
export class FieldError {
  @Field({
    description:
      'Where the field is in the input, from the argument on: e.g. "input.recipient.customer.firstName" (a variable\'s value that does not parse: from the variable\'s name on).',
  })
  path!: string;

  @Field(() => FieldErrorCodeEnum, { description: 'What is wrong with it.' })
  code!: FieldErrorCode;

  @Field({ description: "What is wrong with it, for the customer, in the request's language (never repeats the value)." })
  message!: string;
}

@ObjectType({
  simpleResolvers: true,
  description:
    "What `extensions` holds on every error of this API (GraphQL over HTTP and graphql-ws alike). No field returns it: it is the type to read an error's extensions with. Some codes add their own keys (e.g. minAmount / maxAmount on a BAD_USER_INPUT about an amount, limit and cost on a query limit): see docs/api.md.",
})
export class ErrorExtensions {
  @Field(() => ErrorCodeEnum, { description: 'The stable code; branch on it.' })
  code!: ApiErrorCode;

  @Field(() => String, {
    nullable: true,
    description:
      "What went wrong, for developers, in English (may change; never shown to customers, who read the error's message in their language).",
  })
  detail!: string | null;

  @Field(() => [FieldError], {
    nullable: true,
    description: 'BAD_USER_INPUT about input fields: each field concerned, with its path, code and message.',
  })
  fields!: FieldError[] | null;

  @Field(() => Int, { nullable: true, description: 'RATE_LIMITED: when to try again, in seconds.' })
  retryAfterSeconds!: number | null;

  @Field(() => StateReasonEnum, { nullable: true, description: 'INVALID_STATE: why, where an app can act on it or tell the customer.' })
  reason!: StateReason | null;

  @Field(() => Boolean, { nullable: true, description: 'INVALID_STATE of cancelTransfer: false (the transfer cannot be cancelled now).' })
  cancellable!: boolean | null;

  @Field(() => String, {
    nullable: true,
    description: 'The request id (the x-request-id answered over HTTP; one per operation over graphql-ws): quote it to support.',
  })
  requestId!: string | null;
}
