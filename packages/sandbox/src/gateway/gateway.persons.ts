/**
 * Payment persons: GET /schema/person, POST /person/validate, POST /person.
 *
 * Decision ("Response of the person schema endpoint: not shown"): GET /schema/person?countryCode=BR →
 *   { "countryCode": "BR", "default": false,
 *     "individual": { "requiredFields": [...dotted paths], "identificationTypes": ["CPF"],
 *                     "identificationPattern": "^\\d{11}$", "postalCodePattern": "^\\d{5}-?\\d{3}$" },
 *     "business":   { ...same keys } }
 * Countries with their own rules: US, BR, MX, IN, PH, GB; any other valid alpha-2 code gets the base rules
 * with "default": true. countryCode missing or not ISO alpha-2 → 400 VALIDATION_ERROR.
 *
 * /person/validate and /person apply the rules of address.countryCode (base rules without an address): any
 * failing rule → HTTP 200 { status: "REJECTED", message } (the first failure); lastName "Rejected" → REJECTED.
 * A body that is not a JSON object → 400 INVALID_REQUEST. /person stores an APPROVED person and returns its id;
 * a REJECTED person is not stored and has no id. /person/validate never stores anything.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { isAlpha2 } from './gateway.countries';
import { Issues } from './gateway.errors';
import type { GatewayDeps } from './gateway.state';
import { bodyObject, isEmail, isRecord, type Json } from './gateway.validate';

interface TypeRules {
  requiredFields: string[];
  identificationTypes?: string[];
  identificationPattern?: string;
  postalCodePattern?: string;
  statePattern?: string;
}

interface CountrySchema {
  individual: TypeRules;
  business: TypeRules;
}

const ADDRESS_FIELDS = [
  'address.addressLine1',
  'address.city',
  'address.state',
  'address.postalCode',
  'address.countryCode',
  'address.phoneNumber',
  'address.emailAddress',
];
const BASE_INDIVIDUAL = ['type', 'firstName', 'lastName'];
const BASE_BUSINESS = ['type', 'companyName'];
const ID = ['identificationType', 'identification'];

const COUNTRY_RULES: Record<string, CountrySchema> = {
  US: {
    individual: {
      requiredFields: [...BASE_INDIVIDUAL, ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['SSN', 'TAX_ID'],
      identificationPattern: '^\\d{3}-?\\d{2}-?\\d{4}$',
      postalCodePattern: '^\\d{5}(-\\d{4})?$',
      statePattern: '^[A-Z]{2}$',
    },
    business: {
      requiredFields: [...BASE_BUSINESS, ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['TAX_ID'],
      identificationPattern: '^\\d{2}-?\\d{7}$',
      postalCodePattern: '^\\d{5}(-\\d{4})?$',
      statePattern: '^[A-Z]{2}$',
    },
  },
  BR: {
    individual: {
      requiredFields: [...BASE_INDIVIDUAL, ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['CPF'],
      identificationPattern: '^\\d{3}\\.?\\d{3}\\.?\\d{3}-?\\d{2}$',
      postalCodePattern: '^\\d{5}-?\\d{3}$',
      statePattern: '^[A-Z]{2}$',
    },
    business: {
      requiredFields: [...BASE_BUSINESS, ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['CNPJ'],
      identificationPattern: '^\\d{2}\\.?\\d{3}\\.?\\d{3}/?\\d{4}-?\\d{2}$',
      postalCodePattern: '^\\d{5}-?\\d{3}$',
      statePattern: '^[A-Z]{2}$',
    },
  },
  MX: {
    individual: {
      requiredFields: [...BASE_INDIVIDUAL, 'gender', ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['NATIONAL_ID', 'TAX_ID', 'PASSPORT'],
      identificationPattern: '^[A-Z0-9]{8,18}$',
      postalCodePattern: '^\\d{5}$',
    },
    business: {
      requiredFields: [...BASE_BUSINESS, ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['TAX_ID'],
      identificationPattern: '^[A-Z&Ñ]{3}\\d{6}[A-Z0-9]{3}$',
      postalCodePattern: '^\\d{5}$',
    },
  },
  IN: {
    individual: {
      requiredFields: [...BASE_INDIVIDUAL, ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['TAX_ID', 'NATIONAL_ID', 'PASSPORT'],
      identificationPattern: '^([A-Z]{5}\\d{4}[A-Z]|\\d{12}|[A-Z]\\d{7})$',
      postalCodePattern: '^\\d{6}$',
    },
    business: {
      requiredFields: [...BASE_BUSINESS, ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['TAX_ID'],
      identificationPattern: '^[A-Z]{5}\\d{4}[A-Z]$',
      postalCodePattern: '^\\d{6}$',
    },
  },
  PH: {
    individual: {
      requiredFields: [...BASE_INDIVIDUAL, 'gender', ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['NATIONAL_ID', 'PASSPORT', 'DRIVER_LICENSE', 'TAX_ID'],
      postalCodePattern: '^\\d{4}$',
    },
    business: {
      requiredFields: [...BASE_BUSINESS, ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['TAX_ID'],
      identificationPattern: '^\\d{9}(\\d{3})?$',
      postalCodePattern: '^\\d{4}$',
    },
  },
  GB: {
    individual: {
      requiredFields: [...BASE_INDIVIDUAL, ...ID, ...ADDRESS_FIELDS],
      identificationTypes: ['PASSPORT', 'DRIVER_LICENSE', 'NATIONAL_ID'],
      postalCodePattern: '^[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}$',
    },
    business: {
      requiredFields: [...BASE_BUSINESS, 'identification', ...ADDRESS_FIELDS],
      identificationPattern: '^[A-Z0-9]{8}$',
      postalCodePattern: '^[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}$',
    },
  },
};

/** Base rules (any other country, or no address): names/company, and every address field when an address is sent. */
const DEFAULT_RULES: CountrySchema = {
  individual: { requiredFields: [...BASE_INDIVIDUAL, ...ADDRESS_FIELDS] },
  business: { requiredFields: [...BASE_BUSINESS, ...ADDRESS_FIELDS] },
};

export function personSchema(countryCode: string): Record<string, unknown> {
  const rules = COUNTRY_RULES[countryCode];
  return { countryCode, default: !rules, ...(rules ?? DEFAULT_RULES) };
}

function get(body: Json, path: string): unknown {
  let cur: unknown = body;
  for (const part of path.split('.')) {
    if (!isRecord(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

const PERSON_TYPES = ['INDIVIDUAL', 'BUSINESS'];

/** The first failing rule, or null when the person passes. */
export function evaluatePerson(body: Json): string | null {
  const type = body.type === undefined || body.type === null ? 'INDIVIDUAL' : body.type;
  if (typeof type !== 'string' || !PERSON_TYPES.includes(type)) return 'type must be INDIVIDUAL or BUSINESS';
  for (const key of ['identificationType', 'identification', 'gender', 'firstName', 'lastName', 'companyName']) {
    if (body[key] !== undefined && body[key] !== null && typeof body[key] !== 'string') return `${key} must be a string`;
  }
  if (body.address !== undefined && body.address !== null && !isRecord(body.address)) return 'address must be an object';
  const address = isRecord(body.address) ? body.address : undefined;
  if (address) {
    for (const [k, v] of Object.entries(address))
      if (v !== null && v !== undefined && typeof v !== 'string') return `address.${k} must be a string`;
  }
  const country = address?.countryCode;
  if (address && country !== undefined && country !== '' && !isAlpha2(country))
    return 'address.countryCode must be an ISO 3166-1 alpha-2 code';
  const schema = (typeof country === 'string' && COUNTRY_RULES[country]) || DEFAULT_RULES;
  const rules = type === 'BUSINESS' ? schema.business : schema.individual;
  for (const field of rules.requiredFields) {
    if (field === 'type') continue; // absent type means INDIVIDUAL
    if (field.startsWith('address.') && !address) continue; // the address object itself is optional
    const v = get(body, field);
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return `${field} is required`;
  }
  if (body.gender !== undefined && body.gender !== null && body.gender !== 'M' && body.gender !== 'F') return 'gender must be M or F';
  if (
    rules.identificationTypes &&
    typeof body.identificationType === 'string' &&
    !rules.identificationTypes.includes(body.identificationType)
  ) {
    return `identificationType must be one of ${rules.identificationTypes.join(', ')} for ${String(country)}`;
  }
  if (
    rules.identificationPattern &&
    typeof body.identification === 'string' &&
    !new RegExp(rules.identificationPattern).test(body.identification)
  ) {
    return `identification has an invalid format for ${String(country)}`;
  }
  if (address) {
    if (rules.postalCodePattern && !new RegExp(rules.postalCodePattern).test(String(address.postalCode))) {
      return `address.postalCode has an invalid format for ${String(country)}`;
    }
    if (rules.statePattern && !new RegExp(rules.statePattern).test(String(address.state))) {
      return `address.state must be a 2-letter state code for ${String(country)}`;
    }
    if (!isEmail(String(address.emailAddress))) return 'address.emailAddress is not a valid email address';
    if (!/^\+?\d{7,15}$/.test(String(address.phoneNumber))) return 'address.phoneNumber must have 7 to 15 digits';
  }
  if (type === 'INDIVIDUAL' && body.lastName === 'Rejected') return 'person did not pass KYC screening';
  return null;
}

export function registerPersons(app: FastifyInstance, { ctx, state }: GatewayDeps): void {
  app.get('/schema/person', async (request) => {
    const q = request.query as Record<string, string | undefined>;
    const issues = new Issues();
    if (!q.countryCode) issues.add('countryCode', 'required');
    else if (!isAlpha2(q.countryCode)) issues.add('countryCode', 'must be an ISO 3166-1 alpha-2 code');
    issues.throwIfAny();
    return personSchema(q.countryCode!);
  });

  const respond = (body: Json, create: boolean): Record<string, unknown> => {
    const failure = evaluatePerson(body);
    const type = typeof body.type === 'string' ? body.type : 'INDIVIDUAL';
    const response: Record<string, unknown> = {};
    if (!failure && create) {
      const id = randomUUID();
      state.persons.set(id, { id, body, createdAt: ctx.now().toISOString() });
      response.id = id;
    }
    response.type = type;
    if (typeof body.firstName === 'string') response.firstName = body.firstName;
    if (typeof body.lastName === 'string') response.lastName = body.lastName;
    if (typeof body.companyName === 'string') response.companyName = body.companyName;
    response.status = failure ? 'REJECTED' : 'APPROVED';
    if (failure) response.message = failure;
    return response;
  };

  app.post('/person/validate', async (request) => respond(bodyObject(request.body), false));
  app.post('/person', async (request) => respond(bodyObject(request.body), true));
}
