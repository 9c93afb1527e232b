/**
 * Customer messages: for every code an app may show, a sentence in each language (messages.<tag>.ts, one table per
 * language), picked by the request's Accept-Language (languages.ts). Developer detail stays English and apart
 * (`extensions.detail`, `Failure.detail`).
 */
import type { ApiErrorCode, FieldErrorCode, StateReason } from '../errors';
import type { FailureCode } from '../failure-codes';
import type { MessageCatalog } from './catalog';
import { DEFAULT_LANGUAGE, type Language } from './languages';
import { en } from './messages.en';
import { es } from './messages.es';
import { pt } from './messages.pt';

export type { MessageCatalog } from './catalog';
export { DEFAULT_LANGUAGE, LANGUAGES, isLanguage, negotiateLanguage, type Language } from './languages';

/** The table of each language. */
export const CATALOGS: Readonly<Record<Language, MessageCatalog>> = { en, es, pt };

const catalog = (language: Language | undefined): MessageCatalog => CATALOGS[language ?? DEFAULT_LANGUAGE] ?? CATALOGS[DEFAULT_LANGUAGE];

/** The customer message of an error code. */
export const errorMessage = (code: ApiErrorCode, language?: Language): string => catalog(language).errors[code];

/** The customer message of an INVALID_STATE's reason. */
export const stateReasonMessage = (reason: StateReason, language?: Language): string => catalog(language).reasons[reason];

/** The customer message of a field error code. */
export const fieldMessage = (code: FieldErrorCode, language?: Language): string => catalog(language).fields[code];

/** The customer message of a transfer failure code. */
export const transferFailureMessage = (code: FailureCode, language?: Language): string => catalog(language).failures[code];
