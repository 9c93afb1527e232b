import type { ApiErrorCode, FieldErrorCode, StateReason } from '../errors';
import type { FailureCode } from '../failure-codes';

/**
 * The customer messages of one language: one for every code an app may show — an error's `extensions.code`, a
 * field's `extensions.fields[].code`, an INVALID_STATE's `extensions.reason` and a transfer's `failure.code`. Plain
 * sentences an app can show as they are: nothing technical, nothing the client sent, no placeholders. The type makes a table complete; the unit test
 * test/unit/messages.test.ts checks every one is written (non-empty, not the code).
 */
export interface MessageCatalog {
  errors: Record<ApiErrorCode, string>;
  fields: Record<FieldErrorCode, string>;
  reasons: Record<StateReason, string>;
  failures: Record<FailureCode, string>;
}
