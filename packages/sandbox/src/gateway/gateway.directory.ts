/**
 * Alias directory: POST /v1/alias/directory { countryCode (alpha-3), key, keyType }.
 *
 * - countryCode/keyType outside the documented table → 400 VALIDATION_ERROR (error envelope).
 * - key "00000000000" (any supported country/keyType) → 400 { found: false, countryCode, system, keyType, key, message }.
 * - a key with the wrong format for its keyType → 400 VALIDATION_ERROR.
 * - otherwise found: 200 with deterministic data derived from the key (a real bank of that country, masked
 *   account number and document, a plausible holder name; BUSINESS for CNPJ/UEN/TAX_ID keys).
 * - quota: options.aliasQuotaPerMinute lookups per client in any 60 s of sandbox time; beyond → 429
 *   RATE_LIMITED with Retry-After (seconds). Refused (429) lookups do not count.
 */
import type { FastifyInstance } from 'fastify';
import { alpha3To2 } from './gateway.countries';
import { banksOf } from './gateway.banks.data';
import { requestClientId } from './gateway.auth';
import { GatewayError, Issues } from './gateway.errors';
import type { GatewayDeps } from './gateway.state';
import { bodyObject, hashDigits, hashInt, isEmail, isUuid, reqString } from './gateway.validate';

export const ALIAS_NOT_FOUND_KEY = '00000000000';

interface Rail {
  system: string;
  keyTypes: Record<string, (key: string) => boolean>;
  businessKeyTypes: string[];
  documentTypes: { individual: string; business: string };
  firstNames: string[];
  lastNames: string[];
  companies: string[];
  branch: 'digits4' | 'ifsc' | 'digits3' | null;
}

const re = (r: RegExp) => (k: string) => r.test(k);

export const RAILS: Record<string, Rail> = {
  BRA: {
    system: 'PIX',
    keyTypes: { CPF: re(/^\d{11}$/), CNPJ: re(/^\d{14}$/), EMAIL: isEmail, PHONE: re(/^\+55\d{10,11}$/), EVP: isUuid },
    businessKeyTypes: ['CNPJ'],
    documentTypes: { individual: 'CPF', business: 'CNPJ' },
    firstNames: ['Ana', 'João', 'Maria', 'Pedro', 'Lucas', 'Juliana', 'Gabriel', 'Fernanda'],
    lastNames: ['Silva', 'Santos', 'Oliveira', 'Souza', 'Pereira', 'Costa', 'Rodrigues', 'Almeida'],
    companies: ['Padaria Pão Quente Ltda', 'Comercial Horizonte ME', 'Tecnologia Aurora S.A.', 'Mercadinho Boa Vista Ltda'],
    branch: 'digits4',
  },
  IND: {
    system: 'UPI',
    keyTypes: { VPA: re(/^[A-Za-z0-9._-]{2,256}@[A-Za-z]{2,64}$/), MOBILE: re(/^(\+91)?[6-9]\d{9}$/), AADHAAR: re(/^\d{12}$/) },
    businessKeyTypes: [],
    documentTypes: { individual: 'PAN', business: 'GSTIN' },
    firstNames: ['Aarav', 'Priya', 'Rohan', 'Ananya', 'Vikram', 'Sneha', 'Arjun', 'Kavya'],
    lastNames: ['Sharma', 'Patel', 'Reddy', 'Iyer', 'Singh', 'Gupta', 'Nair', 'Mehta'],
    companies: ['Shree Ganesh Traders', 'Lotus Exports Pvt Ltd'],
    branch: 'ifsc',
  },
  SGP: {
    system: 'PayNow',
    keyTypes: {
      NRIC_FIN: re(/^[STFGM]\d{7}[A-Z]$/),
      UEN: re(/^(\d{8}[A-Z]|\d{9}[A-Z]|[TSR]\d{2}[A-Z]{2}\d{4}[A-Z])$/),
      MOBILE: re(/^(\+65)?[89]\d{7}$/),
      VPA: re(/^[A-Za-z0-9.+#_-]{2,64}@?[A-Za-z0-9]*$/),
    },
    businessKeyTypes: ['UEN'],
    documentTypes: { individual: 'NRIC', business: 'UEN' },
    firstNames: ['Wei Ling', 'Jun Jie', 'Aisyah', 'Rajesh', 'Hui Min', 'Marcus'],
    lastNames: ['Tan', 'Lim', 'Lee', 'Ng', 'Wong', 'Kumar'],
    companies: ['Merlion Trading Pte Ltd', 'Harbourfront Logistics Pte Ltd'],
    branch: 'digits3',
  },
  THA: {
    system: 'PromptPay',
    keyTypes: { CITIZEN_ID: re(/^\d{13}$/), PHONE: re(/^(\+66|0)\d{9}$/), TAX_ID: re(/^\d{13}$/) },
    businessKeyTypes: ['TAX_ID'],
    documentTypes: { individual: 'CITIZEN_ID', business: 'TAX_ID' },
    firstNames: ['Somchai', 'Siriporn', 'Kittipong', 'Nattaya', 'Anan', 'Ploy'],
    lastNames: ['Srisuk', 'Wongsawat', 'Chaiyaporn', 'Rattanakorn', 'Boonmee', 'Saetang'],
    companies: ['Siam Rice Export Co., Ltd.', 'Chao Phraya Trading Co., Ltd.'],
    branch: 'digits3',
  },
  PHL: {
    system: 'InstaPay',
    keyTypes: { MOBILE: re(/^(\+63|0)9\d{9}$/), EMAIL: isEmail, ACCOUNT_NUMBER: re(/^\d{10,16}$/) },
    businessKeyTypes: [],
    documentTypes: { individual: 'TIN', business: 'TIN' },
    firstNames: ['Juan', 'Maria', 'Jose', 'Angelica', 'Mark', 'Kristine'],
    lastNames: ['Dela Cruz', 'Santos', 'Reyes', 'Garcia', 'Mendoza', 'Bautista'],
    companies: ['Bayanihan Sari-Sari Store', 'Luzon Fresh Produce Inc.'],
    branch: null,
  },
};

const WINDOW_MS = 60_000;

export function registerDirectory(app: FastifyInstance, { ctx, state }: GatewayDeps): void {
  app.post('/v1/alias/directory', async (request) => {
    // Quota first: every lookup that reaches the directory counts, whatever its outcome.
    const clientId = requestClientId(request);
    const now = ctx.nowMs();
    const recent = (state.aliasRequests.get(clientId) ?? []).filter((t) => t > now - WINDOW_MS);
    if (recent.length >= ctx.options.aliasQuotaPerMinute) {
      state.aliasRequests.set(clientId, recent);
      const retryAfter = Math.max(1, Math.ceil((recent[0] + WINDOW_MS - now) / 1000));
      throw new GatewayError(
        429,
        'RATE_LIMITED',
        `alias directory quota of ${ctx.options.aliasQuotaPerMinute} lookups per minute exceeded`,
        undefined,
        {},
        {
          'retry-after': String(retryAfter),
        },
      );
    }
    recent.push(now);
    state.aliasRequests.set(clientId, recent);

    const body = bodyObject(request.body);
    const issues = new Issues();
    const countryCode = reqString(issues, body, 'countryCode', 'countryCode', {
      oneOf: Object.keys(RAILS),
    });
    const keyType = reqString(issues, body, 'keyType', 'keyType', { max: 32 });
    const key = reqString(issues, body, 'key', 'key', { max: 256 });
    issues.throwIfAny();
    const rail = RAILS[countryCode!];
    const validKey = rail.keyTypes[keyType!];
    if (!validKey) {
      throw new GatewayError(400, 'VALIDATION_ERROR', `keyType ${keyType} is not supported for ${countryCode}`, [
        { field: 'keyType', issue: `must be one of ${Object.keys(rail.keyTypes).join(', ')} for ${countryCode}` },
      ]);
    }
    if (key === ALIAS_NOT_FOUND_KEY) {
      return reply400NotFound(countryCode!, rail.system, keyType!, key);
    }
    if (!validKey(key!)) {
      throw new GatewayError(400, 'VALIDATION_ERROR', `key has an invalid format for ${keyType}`, [
        { field: 'key', issue: `invalid ${keyType} format` },
      ]);
    }

    const seed = `${countryCode}:${keyType}:${key}`;
    const banks = banksOf(alpha3To2(countryCode!)!);
    const bank = banks[hashInt(`bank:${seed}`) % banks.length];
    const business = rail.businessKeyTypes.includes(keyType!);
    const name = business
      ? rail.companies[hashInt(`co:${seed}`) % rail.companies.length]
      : `${rail.firstNames[hashInt(`fn:${seed}`) % rail.firstNames.length]} ${rail.lastNames[hashInt(`ln:${seed}`) % rail.lastNames.length]}`;
    const docDigits = hashDigits(`doc:${seed}`, 14);
    const account: Record<string, unknown> = {
      bankCode: bank.bankCode,
      bankName: bank.bankName,
      accountType: hashInt(`type:${seed}`) % 3 === 0 ? 'SAVINGS' : 'CHECKING',
      accountNumber: `******${hashDigits(`acct:${seed}`, 4)}`,
    };
    if (rail.branch === 'digits4') account.branchCode = hashDigits(`br:${seed}`, 4);
    else if (rail.branch === 'digits3') account.branchCode = hashDigits(`br:${seed}`, 3);
    else if (rail.branch === 'ifsc') account.branchCode = `${bank.bankCode}0${hashDigits(`br:${seed}`, 6)}`;
    return {
      found: true,
      countryCode,
      system: rail.system,
      keyType,
      key,
      account,
      holder: {
        name,
        documentType: business ? rail.documentTypes.business : rail.documentTypes.individual,
        document: maskedDocument(countryCode!, business, docDigits),
        type: business ? 'BUSINESS' : 'INDIVIDUAL',
      },
    };

    function reply400NotFound(cc: string, system: string, kt: string, k: string): never {
      throw new AliasNotFound({
        found: false,
        countryCode: cc,
        system,
        keyType: kt,
        key: k,
        message: 'No account is registered for this key',
      });
    }
  });
}

/** The documented not-found answer is not the error envelope: it is the alias shape with found false, HTTP 400. */
export class AliasNotFound extends GatewayError {
  constructor(readonly payload: Record<string, unknown>) {
    super(400, 'ALIAS_NOT_FOUND', String(payload.message));
  }
  override body(): never {
    return this.payload as never;
  }
}

function maskedDocument(countryCode: string, business: boolean, d: string): string {
  if (countryCode === 'BRA') return business ? `**.${d.slice(2, 5)}.${d.slice(5, 8)}/****-**` : `***.${d.slice(3, 6)}.${d.slice(6, 9)}-**`;
  if (countryCode === 'IND') return `******${d.slice(0, 3)}*`;
  if (countryCode === 'SGP') return business ? `*****${d.slice(0, 4)}*` : `*****${d.slice(0, 3)}*`;
  if (countryCode === 'THA') return `*********${d.slice(0, 4)}`;
  return `*****${d.slice(0, 4)}`;
}
