import { z } from 'zod';
import { parseCorridors, type CorridorRule } from '../shared/money';
import { FEE_ROUNDINGS, parseDeliveryTimes, parseFees, type Pricing } from '../shared/pricing';
import { HOST_NAME, type ReturnUrlPolicy } from '../shared/return-url';
import { bool, configDocs, doc, httpUrl, int, nonEmpty, type EnvOf } from './config.fields';

/** The sandbox's corridor (USD → BRL) from 1 to 10,000 USD; any other corridor up to 10,000 of its source currency. */
const DEFAULT_CORRIDORS = 'USD>BRL=1..10000,*=..10000';
/** A visible fee on the sandbox's corridor (cards cost more than bank accounts); none elsewhere. */
const DEFAULT_FEES = 'USD>BRL:CARD=2.99+1%,USD>BRL:BANK_ACCOUNT=0.99,*=0';
/** PIX and wallet payouts are near-instant; anything else: within three days. */
const DEFAULT_DELIVERY_TIMES = 'USD>BRL:PIX=..1h,USD>BRL:WALLET=..10m,*=1h..3d';

/** Cards, 3-D Secure return URLs, the bank directory, corridors, pricing and the support contact receipts show. */
export const transfersFields = {
  CARD_CHECK_LEGACY_ENABLED: bool
    .default(false)
    .register(
      configDocs,
      doc('transfers', "`true`: `checkCardLegacy` calls the gateway's legacy card check; `false`: it answers `FORBIDDEN`."),
    ),
  CARD_CHECK_MAX_AGE_S: int(60, 86_400)
    .default(1_800)
    .register(
      configDocs,
      doc(
        'transfers',
        'A card token funds a transfer only if the same customer checked it (`checkCard`/`checkCardLegacy`) at most this many seconds ago (60 to 86400); older: `NOT_FOUND`, check it again.',
      ),
    ),
  CARD_CHECK_REUSE_S: int(0, 3_600)
    .default(300)
    .register(
      configDocs,
      doc(
        'transfers',
        "A card transfer created at most this many seconds after the customer's `checkCard` of the same card and sender was APPROVED (without 3-D Secure) reuses that check instead of checking the card again before authorization (0 to 3600; 0: always check again). A check that asked for 3-D Secure is never reused, nor one that a later check of the card (declined, or for another holder) replaced before the transfer was written.",
      ),
    ),
  THREE_DS_RETURN_URL_HOSTS: z
    .string()
    .trim()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    )
    .refine(
      (list) => list.every((h) => HOST_NAME.test(h)),
      'must be a comma-separated list of host names (no scheme, port, path or wildcard), e.g. app.example.com,links.example.com',
    )
    .register(
      configDocs,
      doc(
        'transfers',
        "Comma-separated host names an app may name as `threeDSReturnUrl` (`createTransfer`, `checkCard`): where the card issuer's 3-D Secure page sends the browser back when the challenge is done. Accepted: `https://` on a listed host (any port); outside production also `http(s)://` on a loopback host (`localhost`, `127.0.0.1`, `[::1]`). Anything else is `BAD_USER_INPUT` before any upstream call (no open redirect). Empty: in production every return URL is refused (fail closed); elsewhere only loopback ones pass.",
        { default: '— (none)', example: '' },
      ),
    ),
  BANK_CACHE_TTL_S: int(0, 86_400)
    .default(300)
    .register(configDocs, doc('transfers', 'Bank look-ups are reused this long (per instance).')),
  BANK_CACHE_MAX_ENTRIES: int(1, 1_000_000).default(1000).register(configDocs, doc('transfers', 'At most this many banks cached.')),
  // Corridor rules: least and most one transfer may send, in the source currency (createQuote, createTransfer)
  TRANSFER_CORRIDORS: z
    .string()
    .default(DEFAULT_CORRIDORS)
    .transform((v, ctx) => {
      const parsed = parseCorridors(v);
      if ('rules' in parsed) return parsed.rules;
      ctx.addIssue({
        code: 'custom',
        message: `entries not understood: ${parsed.invalid.length}; use e.g. USD>BRL=1..10000,USD>MXN/MX=5..2500,*=..10000 (amounts at most 14 integer digits)`,
      });
      return z.NEVER;
    })
    .register(
      configDocs,
      doc(
        'transfers',
        "Corridor rules: the least and the most one transfer may send, in its source currency, as `SRC>DST=MIN..MAX` entries (`SRC>DST/CC` for one destination country, `SRC>*` for a source currency, `*` the default; the most specific applies; no `MIN`: the currency's smallest unit; no `*`: `*=..10000` is added); amounts at most 14 integer digits. Read with the `corridors` / `corridor` queries; `createQuote` and `createTransfer` answer `BAD_USER_INPUT` outside them (`extensions.minAmount` / `maxAmount`), before any upstream call.",
        { default: `\`${DEFAULT_CORRIDORS}\``, example: DEFAULT_CORRIDORS },
      ),
    ),
  TRANSFER_FEES: z
    .string()
    .default(DEFAULT_FEES)
    .transform((v, ctx) => {
      const parsed = parseFees(v);
      if ('rules' in parsed) return parsed.rules;
      ctx.addIssue({
        code: 'custom',
        message: `entries not understood: ${parsed.invalid.length}; use e.g. USD>BRL:CARD=2.99+1%,USD>BRL:BANK_ACCOUNT=0.99,*=0`,
      });
      return z.NEVER;
    })
    .register(
      configDocs,
      doc(
        'transfers',
        "What the service charges per transfer, in the source currency, as `SRC>DST[/CC][:FUNDING]=FEE` entries matched like `TRANSFER_CORRIDORS` (an entry with `:CARD` or `:BANK_ACCOUNT` beats one without; a linked account is `BANK_ACCOUNT`); `FEE` is `FIXED`, `PERCENT%` or `FIXED+PERCENT%` (e.g. `2.99+1%`). fee = FIXED + amount × PERCENT / 100, rounded once to the source currency's minor units with `TRANSFER_FEE_ROUNDING`; total = amount + fee is what the gateway pulls. No `*`: `*=0` is added. Shown by `createQuote` (`fee`, `total`) and the `corridor` queries (`fees`, `price`); a transfer keeps its quote's fee.",
        { default: `\`${DEFAULT_FEES}\``, example: DEFAULT_FEES },
      ),
    ),
  TRANSFER_FEE_ROUNDING: z
    .enum(Object.keys(FEE_ROUNDINGS) as [keyof typeof FEE_ROUNDINGS, ...(keyof typeof FEE_ROUNDINGS)[]])
    .default('HALF_UP')
    .register(
      configDocs,
      doc(
        'transfers',
        "How a fee is rounded to the source currency's minor units: `HALF_UP` (0.005 → 0.01), `HALF_EVEN` (to the even unit on a tie), `UP` (away from zero: never less than the exact fee) or `DOWN` (toward zero: never more).",
      ),
    ),
  TRANSFER_DELIVERY_TIMES: z
    .string()
    .default(DEFAULT_DELIVERY_TIMES)
    .transform((v, ctx) => {
      const parsed = parseDeliveryTimes(v);
      if ('rules' in parsed) return parsed.rules;
      ctx.addIssue({
        code: 'custom',
        message: `entries not understood: ${parsed.invalid.length}; use e.g. USD>BRL:PIX=..1h,USD>BRL:WALLET=..10m,*=1h..3d`,
      });
      return z.NEVER;
    })
    .register(
      configDocs,
      doc(
        'transfers',
        'How long a payout takes, as `SRC>DST[/CC][:DESTINATION]=MIN..MAX` entries matched like `TRANSFER_CORRIDORS` (`:PIX` or `:WALLET` beats no destination type); durations `0`, `90s`, `30m`, `2h`, `3d` (no MIN: 0). The platform gives no delivery time of its own: this is the estimate `createQuote` and the `corridor` queries show (a quote without `destinationType`: the widest window over the destination types) and the transfer keeps from its quote. No `*`: `*=0..3d` is added.',
        { default: `\`${DEFAULT_DELIVERY_TIMES}\``, example: DEFAULT_DELIVERY_TIMES },
      ),
    ),
  SUPPORT_NAME: nonEmpty
    .default('remittance-bff')
    .register(configDocs, doc('transfers', 'The operator as receipts name it (the business the customer deals with).')),
  SUPPORT_EMAIL: z
    .string()
    .trim()
    .email('must be an e-mail address')
    .optional()
    .register(
      configDocs,
      doc(
        'transfers',
        "The operator's support e-mail on every receipt. Production needs `SUPPORT_EMAIL`, `SUPPORT_PHONE` or `SUPPORT_URL`.",
        {
          default: 'production: none; elsewhere `support@example.com`',
        },
      ),
    ),
  SUPPORT_PHONE: z
    .string()
    .trim()
    .regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +18005550100')
    .optional()
    .register(configDocs, doc('transfers', "The operator's support phone (E.164) on every receipt.")),
  SUPPORT_URL: httpUrl.optional().register(configDocs, doc('transfers', "The operator's support page on every receipt (`https://`).")),
};

export interface TransfersConfig {
  /** The legacy card check (checkCardLegacy) answers only when enabled. */
  cardCheckLegacyEnabled: boolean;
  /** A card token funds a transfer only if its owner checked it (checkCard) at most this long ago. */
  cardCheckMaxAgeMs: number;
  /** CARD_CHECK_REUSE_S in ms: how recent an APPROVED checkCard a card transfer reuses (0: never). */
  cardCheckReuseMs: number;
  /** The 3-D Secure return URLs an app may give (THREE_DS_RETURN_URL_HOSTS; src/shared/return-url.ts). */
  threeDSReturnUrls: ReturnUrlPolicy;
  directory: { bankCacheTtlS: number; bankCacheMax: number };
  /** Corridor rules (TRANSFER_CORRIDORS), the `*` default included. */
  corridors: CorridorRule[];
  /** Fees and delivery times per corridor (TRANSFER_FEES, TRANSFER_FEE_ROUNDING, TRANSFER_DELIVERY_TIMES). */
  pricing: Pricing;
  /** The operator's support contact, as receipts show it (at least one of email, phone, url). */
  support: { name: string; email: string | null; phone: string | null; url: string | null };
}

export function transfersConfig(e: EnvOf<typeof transfersFields>, production: boolean): TransfersConfig {
  return {
    cardCheckLegacyEnabled: e.CARD_CHECK_LEGACY_ENABLED,
    cardCheckMaxAgeMs: e.CARD_CHECK_MAX_AGE_S * 1000,
    cardCheckReuseMs: Math.min(e.CARD_CHECK_REUSE_S, e.CARD_CHECK_MAX_AGE_S) * 1000,
    threeDSReturnUrls: { hosts: e.THREE_DS_RETURN_URL_HOSTS, production },
    directory: { bankCacheTtlS: e.BANK_CACHE_TTL_S, bankCacheMax: e.BANK_CACHE_MAX_ENTRIES },
    corridors: e.TRANSFER_CORRIDORS,
    pricing: { fees: e.TRANSFER_FEES, rounding: e.TRANSFER_FEE_ROUNDING, delivery: e.TRANSFER_DELIVERY_TIMES },
    support: {
      name: e.SUPPORT_NAME,
      email: e.SUPPORT_EMAIL ?? (production || e.SUPPORT_PHONE || e.SUPPORT_URL ? null : 'support@example.com'),
      phone: e.SUPPORT_PHONE ?? null,
      url: e.SUPPORT_URL ?? null,
    },
  };
}
