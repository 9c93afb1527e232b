import { alpha3 } from './countries';

/**
 * A postal address as the API takes it (one shape for every address): alpha-2 country, a region name and an
 * optional region code. Each upstream wants its own spelling; the mappers below derive it, so callers never
 * send the same fact twice.
 */
export interface PostalAddress {
  line1: string;
  line2?: string | null;
  city: string;
  /** The state, province or region as people write it, e.g. "California" or "CA". */
  region: string;
  /** Its code, e.g. "CA" or "SP", when it has one; the region stands in for it when absent. */
  regionCode?: string | null;
  postalCode: string;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
}

/** The region's code where an upstream wants a state code (the region itself when no code was given). */
const regionCodeOf = (a: PostalAddress): string => a.regionCode || a.region;

const line2Of = (a: PostalAddress) => (a.line2 ? { line2: a.line2 } : {});

/** The gateway's check address (card checks, raw bank-account checks): stateCode and zipCode, country in the form the field wants. */
export const gatewayCheckAddress = (a: PostalAddress, country: 'alpha2' | 'alpha3') => ({
  countryCode: country === 'alpha3' ? alpha3(a.countryCode) : a.countryCode,
  stateCode: regionCodeOf(a),
  city: a.city,
  line1: a.line1,
  ...line2Of(a),
  zipCode: a.postalCode,
});

/** The gateway's payment customer address: both the state name and its code, no country (the customer carries it). */
export const gatewayPaymentAddress = (a: PostalAddress) => ({
  stateCode: regionCodeOf(a),
  city: a.city,
  line1: a.line1,
  ...line2Of(a),
  state: a.region,
  zipCode: a.postalCode,
});

/** The gateway's person address (KYC): addressLine1/2, the state code, postalCode; contact details travel with it. */
export const gatewayPersonAddress = (a: PostalAddress, contact: { phoneNumber: string; email: string }) => ({
  addressLine1: a.line1,
  ...(a.line2 ? { addressLine2: a.line2 } : {}),
  city: a.city,
  state: regionCodeOf(a),
  postalCode: a.postalCode,
  countryCode: a.countryCode,
  phoneNumber: contact.phoneNumber,
  emailAddress: contact.email,
});

/** The remittances platform's address check: state code and alpha-2 country. */
export const platformAddress = (a: PostalAddress) => ({
  line1: a.line1,
  ...line2Of(a),
  city: a.city,
  state: regionCodeOf(a),
  postalCode: a.postalCode,
  country: a.countryCode,
});
