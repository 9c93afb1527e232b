import DataLoader from 'dataloader';
import type { LRUCache } from 'lru-cache';
import { alpha3 } from '../../shared/countries';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { AliasLookupResult, Bank as UpstreamBank } from '../../upstream/gateway/gateway.types';
import { isUpstreamError } from '../../upstream/http/upstream.errors';
import type { Clock } from '../../shared/clock';
import { badField } from '../../shared/errors';
import { windowOfPages, type OffsetPage, type PageWindow } from '../../shared/page';
import { clockedLru, lruTtl } from '../../shared/lru';

interface BankView {
  bankCode: string;
  name: string;
  countryCode: string;
  swift: string | null;
}

/** Alias directory countries (ISO alpha-2, as the API takes them; the gateway is sent alpha-3) and their key types. */
export const ALIAS_RAILS: Record<string, readonly string[]> = {
  BR: ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'],
  IN: ['VPA', 'MOBILE', 'AADHAAR'],
  SG: ['NRIC_FIN', 'UEN', 'MOBILE', 'VPA'],
  TH: ['CITIZEN_ID', 'PHONE', 'TAX_ID'],
  PH: ['MOBILE', 'EMAIL', 'ACCOUNT_NUMBER'],
};

/** Rail names, for a not-found answer without one. */
const RAIL_NAMES: Record<string, string> = { BR: 'PIX', IN: 'UPI', SG: 'PayNow', TH: 'PromptPay', PH: 'InstaPay' };

interface DirectoryOptions {
  /** How long a bank look-up is reused (default 5 min; 0 or 1 ms: not reused). */
  bankTtlMs?: number;
  /** At most this many banks cached (default 1000). */
  bankCacheMax?: number;
}

const bankKey = (countryCode: string, bankCode: string) => `${countryCode.toUpperCase()}|${bankCode.replace(/[-\s]/g, '').toUpperCase()}`;

/**
 * Alias and bank directories of the payments gateway.
 *
 * Bank look-ups: a per-request DataLoader (one call per distinct bank in a request, however many rows ask)
 * in front of a shared, bounded, short-lived cache (no call at all while fresh). "Not found" is cached too. The cache
 * holds promises, so concurrent requests for the same bank share one upstream call.
 * The gateway has no batch endpoint, so the loader's batch function fans out one GET /bank per distinct key.
 */
export class DirectoryService {
  /** null: look-ups are not reused (a time-to-live too short to keep anything). */
  private readonly banks: LRUCache<string, Promise<BankView | null>> | null;
  private readonly loaders = new WeakMap<object, DataLoader<string, BankView | null>>();

  constructor(
    private readonly gateway: GatewayClient,
    clock: Clock,
    opts: DirectoryOptions = {},
  ) {
    const ttlMs = opts.bankTtlMs ?? 5 * 60_000;
    this.banks = lruTtl(ttlMs) === null ? null : clockedLru({ max: opts.bankCacheMax ?? 1000, ttlMs, clock });
  }

  /**
   * One bank, or null when the directory does not know it. `scope` is the per-request object (the GraphQL
   * context) that the DataLoader lives on; other modules (e.g. a transfer list showing each recipient's
   * bank) call this with their context to get the same batching and caching.
   */
  bank(scope: object, countryCode: string, bankCode: string): Promise<BankView | null> {
    let loader = this.loaders.get(scope);
    if (!loader) {
      loader = new DataLoader<string, BankView | null>((keys) => Promise.all(keys.map((k) => this.cachedBank(k).catch((e: Error) => e))), {
        maxBatchSize: 50,
      });
      this.loaders.set(scope, loader);
    }
    return loader.load(bankKey(countryCode, bankCode));
  }

  private cachedBank(key: string): Promise<BankView | null> {
    const hit = this.banks?.get(key);
    if (hit) return hit;
    const [countryCode, bankNumber] = key.split('|') as [string, string];
    const p = this.gateway.getBank({ countryCode, bankNumber }).then(
      (b) => toBankView(b),
      (e: unknown) => {
        if (isUpstreamError(e) && e.kind === 'not_found') return null;
        this.banks?.delete(key); // failures are not cached
        throw e;
      },
    );
    this.banks?.set(key, p);
    return p;
  }

  /** A page of a country's banks over the gateway's zero-based pages (one or two upstream pages). */
  listBanks(countryCode: string, window: PageWindow): Promise<OffsetPage<BankView>> {
    const country = countryCode.toUpperCase();
    return windowOfPages(window, (page, resultsPerPage) => this.gateway.listBanks({ countryCode: country, page, resultsPerPage }), {
      items: (r) => r.banks,
      total: (r) => r.totalResults,
      item: toBankView,
    });
  }

  /**
   * Alias look-up. Not found (HTTP 400 found:false) is a result. The key is never returned nor logged;
   * the account number, holder name and document come back masked.
   */
  async resolveAlias(countryCode: string, keyType: string, key: string) {
    const keyTypes = ALIAS_RAILS[countryCode];
    if (!keyTypes)
      throw badField(
        'countryCode',
        'INVALID_CHOICE',
        `countryCode must be one of ${Object.keys(ALIAS_RAILS).join(', ')} (ISO 3166-1 alpha-2)`,
      );
    if (!keyTypes.includes(keyType))
      throw badField('keyType', 'INVALID_CHOICE', `keyType for ${countryCode} must be one of ${keyTypes.join(', ')}`);
    const r: AliasLookupResult = await this.gateway.lookupAlias({ countryCode: alpha3(countryCode), keyType, key: key.trim() });
    if (!r.found) {
      return {
        found: false as const,
        countryCode,
        system: r.system ?? RAIL_NAMES[countryCode] ?? countryCode,
        keyType,
        message: 'No account is registered for this key. Check it with the recipient.',
      };
    }
    const business = r.holder.type === 'BUSINESS';
    return {
      found: true as const,
      countryCode,
      system: r.system,
      keyType: r.keyType,
      account: {
        bankCode: r.account.bankCode,
        bankName: r.account.bankName ?? null,
        accountType: r.account.accountType ?? null,
        accountNumberMasked: maskKeepLast(r.account.accountNumber, 4),
        branchCode: r.account.branchCode ?? null,
        countryCode,
      },
      holder: {
        displayName: business ? r.holder.name : maskPersonName(r.holder.name),
        documentType: r.holder.documentType ?? null,
        documentMasked: r.holder.document ? maskKeepLast(r.holder.document, 2) : null,
        type: r.holder.type ?? null,
      },
    };
  }
}

function toBankView(b: UpstreamBank): BankView {
  return { bankCode: b.bankCode, name: b.bankName, countryCode: b.countryCode, swift: b.swift ?? null };
}

/** Every letter/digit except the last `keep` becomes '*'; separators stay (so "123.456.789-01" → "***.***.***-01"). */
function maskKeepLast(value: string, keep: number): string {
  let seen = 0;
  const chars = [...value];
  for (let i = chars.length - 1; i >= 0; i--) {
    if (/[\p{L}\p{N}]/u.test(chars[i]!)) {
      seen++;
      if (seen > keep) chars[i] = '*';
    }
  }
  return chars.join('');
}

/** "Maria da Silva" → "Maria S."; a single name → its first letter and "." */
function maskPersonName(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return '';
  if (parts.length === 1) return `${[...parts[0]!][0]}.`;
  return `${parts[0]} ${[...parts.at(-1)!][0]}.`;
}
