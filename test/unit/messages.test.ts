/**
 * Customer messages (src/shared/messages): every code an app may show — each error code, field error code,
 * INVALID_STATE reason and transfer failure code — has a written message in every language; the GraphQL enums list exactly those codes;
 * every failure code the transfer sources set is one of them; Accept-Language picks the language (no database).
 */
import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isEnumType, type GraphQLSchema } from 'graphql';
import { API_ERROR_CODES, FIELD_ERROR_CODES, STATE_REASONS } from '../../src/shared/errors';
import { FAILURE_CODES, failureCodeOf } from '../../src/shared/failure-codes';
import { CATALOGS, DEFAULT_LANGUAGE, LANGUAGES, negotiateLanguage } from '../../src/shared/messages';
import { PLATFORM_ORDER, PLATFORM_TERMINAL, payoutStopped } from '../../src/modules/transfer/transfer.platform';
import { buildApiSchema } from '../../src/modules/modules';

const FAILURES = Object.keys(FAILURE_CODES);
const TABLES = { errors: [...API_ERROR_CODES], fields: [...FIELD_ERROR_CODES], reasons: [...STATE_REASONS], failures: FAILURES } as const;
type Table = keyof typeof TABLES;
const ENUMS: Record<string, Table> = { ErrorCode: 'errors', FieldErrorCode: 'fields', StateReason: 'reasons', FailureCode: 'failures' };

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildApiSchema();
});

describe('the message tables', () => {
  it('are en, es and pt, English by default', () => {
    expect([...LANGUAGES].sort()).toEqual(['en', 'es', 'pt']);
    expect(DEFAULT_LANGUAGE).toBe('en');
    expect(Object.keys(CATALOGS).sort()).toEqual([...LANGUAGES].sort());
  });

  it.each(LANGUAGES.flatMap((language) => (Object.keys(TABLES) as Table[]).map((table) => [language, table] as const)))(
    '%s %s: a written message for every code, and no other',
    (language, table) => {
      const messages = CATALOGS[language][table] as Record<string, string>;
      expect(Object.keys(messages).sort()).toEqual([...TABLES[table]].sort());
      const bad = TABLES[table].filter((code) => {
        const m = messages[code];
        return typeof m !== 'string' || m.trim() === '' || m.trim() === code || m.includes(code) || /[{}$<>]/.test(m);
      });
      expect(bad).toEqual([]);
    },
  );

  it.each(LANGUAGES.filter((l) => l !== 'en'))('%s is translated: no message is the English one', (language) => {
    const same = (Object.keys(TABLES) as Table[]).flatMap((table) =>
      TABLES[table]
        .filter(
          (code) => (CATALOGS[language][table] as Record<string, string>)[code] === (CATALOGS.en[table] as Record<string, string>)[code],
        )
        .map((code) => `${table}.${code}`),
    );
    expect(same).toEqual([]);
  });

  it.each(Object.entries(ENUMS))('every value of the GraphQL enum %s has its message in every language', (name, table) => {
    const type = schema.getType(name);
    expect(isEnumType(type)).toBe(true);
    const values = isEnumType(type) ? type.getValues().map((v) => v.name) : [];
    expect(values.sort()).toEqual([...TABLES[table]].sort());
    for (const language of LANGUAGES)
      expect(values.filter((v) => !(CATALOGS[language][table] as Record<string, string>)[v]?.trim())).toEqual([]);
  });
});

describe('failure codes', () => {
  /** Every upper-case literal a failureCode is given in the transfer sources (`failureCode: 'X'`, `failureCode: c ? 'X' : 'Y'`). */
  function literalFailureCodes(): string[] {
    const dir = join(__dirname, '..', '..', 'src', 'modules', 'transfer');
    const codes = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const m of text.matchAll(/failureCode:\s*([^,}\n]+)/g))
        for (const literal of m[1]!.matchAll(/'([A-Z][A-Z0-9_]+)'/g)) codes.add(literal[1]!);
      // failureMessage('X'), ended('X') and `code = … ? 'X' : req.failureCode` name codes too
      for (const m of text.matchAll(/(?:failureMessage|ended)\('([A-Z][A-Z0-9_]+)'\)/g)) codes.add(m[1]!);
      for (const m of text.matchAll(/\? '([A-Z][A-Z0-9_]+)' : req\.failureCode/g)) codes.add(m[1]!);
    }
    return [...codes].sort();
  }

  it('every code the transfer sources set is a FailureCode', () => {
    const literals = literalFailureCodes();
    expect(literals.length).toBeGreaterThanOrEqual(13);
    expect(literals.filter((c) => !(c in FAILURE_CODES))).toEqual([]);
  });

  it('every code a stopped payout records is a FailureCode', () => {
    // every transaction and payout status the platform documents (transfer.platform.ts)
    const statuses = [null, ...PLATFORM_ORDER, 'CancelRequested', ...PLATFORM_TERMINAL];
    const payouts = [null, 'AUTHORIZED', 'PENDING', 'CAPTURED', 'DECLINED', 'VOIDED', 'REFUNDED', 'ERROR'];
    const codes = new Set<string>();
    for (const s of statuses) for (const p of payouts) codes.add(payoutStopped({ upstreamTransactionStatus: s, payoutStatus: p }) ?? '');
    codes.delete('');
    expect([...codes].sort()).toEqual(
      ['PAYOUT_CANCELLED', 'PAYOUT_DECLINED', 'PAYOUT_ERROR', 'PAYOUT_PAYOUTREJECTED', 'PAYOUT_REFUNDED', 'PAYOUT_VOIDED'].sort(),
    );
    expect([...codes].filter((c) => !(c in FAILURE_CODES))).toEqual([]);
  });

  it('a recorded code the API does not know reads as OTHER', () => {
    expect(failureCodeOf('PAYMENT_DECLINED')).toBe('PAYMENT_DECLINED');
    expect(failureCodeOf('SOMETHING_NEW')).toBe('OTHER');
    expect(failureCodeOf('toString')).toBe('OTHER');
  });
});

describe('negotiateLanguage (Accept-Language)', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['es', 'es'],
    ['pt-BR', 'pt'],
    ['es-MX,es;q=0.9,en;q=0.8', 'es'],
    ['pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7', 'pt'],
    ['fr-FR, fr;q=0.9', 'en'],
    ['fr, es;q=0.5', 'es'],
    ['en;q=0.5, pt;q=0.8', 'pt'],
    ['es;q=0.5, pt;q=0.5', 'es'],
    ['ES-419', 'es'],
    ['pt;q=0, es;q=0.1', 'es'],
    ['pt-BR;q=0.9, es;q=0.5, pt;q=0', 'es'],
    ['*', 'en'],
    ['en;q=0, *;q=0.5', 'es'],
    ['fr, *;q=0.1', 'en'],
    ['es;q=1.5, pt', 'pt'],
    ['es;q=abc', 'en'],
    [['pt-BR', 'es;q=0.5'], 'pt'],
  ])('%j → %s', (header, language) => {
    expect(negotiateLanguage(header as string | string[] | undefined)).toBe(language);
  });

  it('reads at most its first 512 characters and 32 ranges: a long header costs no more than a short one', () => {
    expect(negotiateLanguage('x'.repeat(100_000))).toBe('en');
    expect(negotiateLanguage(`${'fr,'.repeat(100)}es`)).toBe('en');
    expect(negotiateLanguage(`${'fr,'.repeat(10)}es`)).toBe('es');
  });
});
