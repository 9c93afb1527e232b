import { REDACT_PATHS } from '../../shared/logger';

/**
 * Deep redaction for upstream request/response logging.
 *
 * pino's `redact` paths (REDACT_PATHS) match fixed depths (`*.email` is one level), while upstream
 * bodies nest PII arbitrarily deep (`sender.customer.email`, `recipient.destination.pix.key`). So the
 * upstream layer redacts by *key name* at any depth before anything reaches the logger: every key named
 * in REDACT_PATHS, plus the PII fields of the upstream documents (names, addresses, birth dates, alias
 * keys, masked numbers, ...). Keys compare case-insensitively.
 */
const FROM_LOGGER = REDACT_PATHS.map((p) => {
  const bracket = /\["([^"]+)"\]$/.exec(p);
  return bracket ? bracket[1] : (p.split('.').pop() ?? p);
});

const EXTRA = [
  // credentials and tokens
  'x-api-key',
  'x-agent-api-key',
  'cookie',
  'set-cookie',
  'secretID',
  'client_secret',
  'clientSecret',
  'access_token',
  'accessToken',
  'refresh_token',
  'id_token',
  'apiKey',
  'signingSecret',
  'token',
  'cardTokenId',
  'accountCheckToken',
  'accountTokenId',
  'password',
  // PII
  'firstName',
  'lastName',
  'companyName',
  'businessName',
  'name',
  'bankAccountName',
  'email',
  'emailAddress',
  'phoneNumber',
  'birthDate',
  'identification',
  'document',
  'documentNumber',
  'documents',
  'accountNumber',
  'accountNumberMasked',
  'routingNumber',
  'routingNumberMasked',
  'addressLine1',
  'addressLine2',
  'line1',
  'line2',
  'zipCode',
  'postalCode',
  'key', // alias directory key: CPF, phone, email, ...
  'ipAddress',
  'userRef',
];

const SENSITIVE = new Set([...FROM_LOGGER, ...EXTRA].map((k) => k.toLowerCase()));

const REDACTED = '[REDACTED]';

function isSensitiveKey(key: string): boolean {
  return SENSITIVE.has(key.toLowerCase());
}

/** A copy of `value` with every sensitive key's value replaced, at any depth. */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (depth > 12) return '[DEPTH]';
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = isSensitiveKey(k) && v !== null && v !== undefined ? REDACTED : redactDeep(v, depth + 1);
    }
    return out;
  }
  return value;
}

/** Headers with credentials removed (authorization, x-api-key, x-agent-api-key, cookies). */
export function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = isSensitiveKey(k) ? REDACTED : v;
  return out;
}

/** Form bodies (token requests): redact secrets by parameter name. */
export function redactForm(form: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) out[k] = isSensitiveKey(k) ? REDACTED : v;
  return out;
}

/**
 * Free text from an upstream (error messages) may echo input. Keep it short and mask what looks like
 * an e-mail address, a long digit run (document, account, phone, card numbers), a JWT or a UUID-ish token.
 */
export function scrubMessage(message: unknown, max = 200): string | null {
  if (typeof message !== 'string' || message.length === 0) return null;
  return message
    .slice(0, max)
    .replace(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, '[email]')
    .replace(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[jwt]')
    .replace(/\+?\d[\d\s-]{5,}\d/g, '[number]');
}
