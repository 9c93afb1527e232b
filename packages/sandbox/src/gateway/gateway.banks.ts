/**
 * Bank directory: GET /bank?bankNumber=&countryCode= and GET /bank/list?countryCode=&page=&resultsPerPage=.
 * countryCode is ISO alpha-2 (alpha-3 accepted too); the response carries alpha-2. bankNumber is the national
 * bank code (ABA routing number in the US, COMPE in BR, CLABE bank prefix in MX, IFSC bank prefix in IN, ...).
 * Paging is zero-based; resultsPerPage defaults to 20, at most 100; a page past the end is empty.
 * Banks are sorted by name. Unknown bank → 404 BANK_NOT_FOUND; bad parameters → 400 VALIDATION_ERROR.
 */
import type { FastifyInstance } from 'fastify';
import { toAlpha2 } from './gateway.countries';
import { GatewayError, Issues } from './gateway.errors';
import type { GatewayDeps } from './gateway.state';
import { banksOf, type BankRecord } from './gateway.banks.data';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** A zero-based page parameter and a size parameter, validated. */
export function paging(
  issues: Issues,
  q: Record<string, string | undefined>,
  pageKey: string,
  sizeKey: string,
): { page: number; size: number } {
  let page = 0;
  let size = DEFAULT_PAGE_SIZE;
  const p = q[pageKey];
  if (p !== undefined && p !== '') {
    if (!/^\d+$/.test(p)) issues.add(pageKey, 'must be a non-negative integer (zero-based)');
    else page = Number(p);
  }
  const s = q[sizeKey];
  if (s !== undefined && s !== '') {
    if (!/^\d+$/.test(s) || Number(s) < 1 || Number(s) > MAX_PAGE_SIZE)
      issues.add(sizeKey, `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    else size = Number(s);
  }
  return { page, size };
}

const view = (b: BankRecord) => ({ bankCode: b.bankCode, bankName: b.bankName, countryCode: b.countryCode, swift: b.swift });

export function registerBanks(app: FastifyInstance, _deps: GatewayDeps): void {
  app.get('/bank', async (request) => {
    const q = request.query as Record<string, string | undefined>;
    const issues = new Issues();
    if (!q.bankNumber) issues.add('bankNumber', 'required');
    if (!q.countryCode) issues.add('countryCode', 'required');
    else if (!toAlpha2(q.countryCode)) issues.add('countryCode', 'must be an ISO 3166-1 country code');
    issues.throwIfAny();
    const country = toAlpha2(q.countryCode)!;
    const wanted = q.bankNumber!.replace(/[-\s]/g, '').toUpperCase();
    const bank = banksOf(country).find((b) => b.bankCode.toUpperCase() === wanted);
    if (!bank) throw new GatewayError(404, 'BANK_NOT_FOUND', `no bank ${q.bankNumber} in ${country}`);
    return view(bank);
  });

  app.get('/bank/list', async (request) => {
    const q = request.query as Record<string, string | undefined>;
    const issues = new Issues();
    if (!q.countryCode) issues.add('countryCode', 'required');
    else if (!toAlpha2(q.countryCode)) issues.add('countryCode', 'must be an ISO 3166-1 country code');
    const { page, size } = paging(issues, q, 'page', 'resultsPerPage');
    issues.throwIfAny();
    const all = banksOf(toAlpha2(q.countryCode)!);
    return {
      banks: all.slice(page * size, page * size + size).map(view),
      page,
      resultsPerPage: size,
      totalResults: all.length,
    };
  });
}
