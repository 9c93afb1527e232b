/**
 * Simulated cards. A card token is a UUID from the client-side tokenizer; its last four hex characters
 * select the sandbox behaviour (like test cards). The card's last four digits are those four characters when
 * they are digits (a token ending 0002 is the "card ending 0002" everywhere: the check's card.lastFour, the 3DS
 * page), else four digits derived from the token; everything else about the card (BIN, issuer) is derived
 * deterministically from the token.
 *
 * | token ends in | v2 card check                                      | legacy card check        | payment (/v2/payment)        |
 * |---------------|----------------------------------------------------|--------------------------|------------------------------|
 * | 0002          | 3DS challenge until authenticated, then approved   | CHALLENGE, then APPROVED | declined until authenticated |
 * | 0003          | cvc FAILED                                         | REJECTED, PAY_084        | approved                     |
 * | 0004          | approved                                           | APPROVED                 | declined at authorization    |
 * | 0005          | avs PARTIAL_MATCH                                  | APPROVED (avs APPROVED)  | approved                     |
 * | 0006          | avs FAILED                                         | REJECTED, PAY_084        | approved                     |
 * | 0007          | avs NOT_SUPPORTED                                  | APPROVED (avs N/A)       | approved                     |
 * | 0008          | cvc NOT_SUPPORTED                                  | APPROVED (cvc N/A)       | approved                     |
 * | 0009          | cvc NOT_SENT                                       | APPROVED (cvc NOT_SENT)  | approved                     |
 * | 0010          | aavCardholderName PARTIAL_MATCH                    | APPROVED (aav APPROVED)  | approved                     |
 * | 0011          | aavCardholderName FAILED                           | REJECTED, PAY_084        | approved                     |
 * | 0012          | aavCardholderName NOT_SUPPORTED (Mastercard BIN)   | APPROVED (aav N/A)       | approved                     |
 * | 0013          | octStatus.capable false (cannot receive payouts)   | APPROVED                 | approved                     |
 * | 0014          | aftStatus.capable false (cannot fund pulls)        | APPROVED                 | declined at authorization    |
 * | anything else | all APPROVED                                       | APPROVED, 00             | approved                     |
 *
 * avs is NOT_SENT whenever the request has no sender.address; all three results are N/A while a challenge is pending.
 */
import { hashDigits, hashInt } from './gateway.validate';

export type AvsResult = 'APPROVED' | 'PARTIAL_MATCH' | 'FAILED' | 'NOT_SUPPORTED' | 'NOT_SENT' | 'N/A';
export type CvcResult = 'APPROVED' | 'FAILED' | 'NOT_SUPPORTED' | 'NOT_SENT' | 'N/A';
export type AavResult = 'APPROVED' | 'PARTIAL_MATCH' | 'FAILED' | 'NOT_SUPPORTED' | 'N/A';

export interface CapabilityStatus {
  capable: boolean;
  highPerforming: boolean;
  lowPerforming: boolean;
}

export interface CardProfile {
  magic: string;
  network: 'VISA' | 'MASTERCARD';
  bin: string;
  lastFour: string;
  issuerName: string;
  issuerCountry: string;
  needs3ds: boolean;
  avs: AvsResult; // when an address was sent
  cvc: CvcResult;
  aav: AavResult;
  oct: CapabilityStatus;
  aft: CapabilityStatus;
  /** Why an authorization with this card is declined, or null. (3DS is handled separately.) */
  declineReason: string | null;
}

const ISSUERS = ['Sandbox National Bank', 'First Sandbox Credit Union', 'Example Federal Savings', 'Demo Trust Bank'];
const CAPABLE: CapabilityStatus = { capable: true, highPerforming: true, lowPerforming: false };
const NOT_CAPABLE: CapabilityStatus = { capable: false, highPerforming: false, lowPerforming: false };

export function cardProfile(cardTokenId: string): CardProfile {
  const token = cardTokenId.toLowerCase();
  const magic = token.slice(-4);
  const network = magic === '0012' ? 'MASTERCARD' : 'VISA';
  const digits = hashDigits(`card:${token}`, 9);
  return {
    magic,
    network,
    bin: network === 'VISA' ? `4${digits.slice(0, 5)}` : `5${(hashInt(token) % 5) + 1}${digits.slice(0, 4)}`,
    lastFour: /^\d{4}$/.test(magic) ? magic : digits.slice(5, 9),
    issuerName: ISSUERS[hashInt(`issuer:${token}`) % ISSUERS.length],
    issuerCountry: 'US',
    needs3ds: magic === '0002',
    avs: magic === '0005' ? 'PARTIAL_MATCH' : magic === '0006' ? 'FAILED' : magic === '0007' ? 'NOT_SUPPORTED' : 'APPROVED',
    cvc: magic === '0003' ? 'FAILED' : magic === '0008' ? 'NOT_SUPPORTED' : magic === '0009' ? 'NOT_SENT' : 'APPROVED',
    aav: magic === '0010' ? 'PARTIAL_MATCH' : magic === '0011' ? 'FAILED' : magic === '0012' ? 'NOT_SUPPORTED' : 'APPROVED',
    oct: magic === '0013' ? NOT_CAPABLE : CAPABLE,
    aft: magic === '0014' ? NOT_CAPABLE : CAPABLE,
    declineReason: magic === '0004' ? 'Do not honor' : magic === '0014' ? 'Card cannot fund pull transactions (AFT not supported)' : null,
  };
}

/** v2 result values → the legacy form's narrower value sets. */
export function legacyAvs(v: AvsResult): string {
  return v === 'PARTIAL_MATCH' ? 'APPROVED' : v === 'NOT_SUPPORTED' ? 'N/A' : v;
}
export function legacyCvc(v: CvcResult): string {
  return v === 'NOT_SUPPORTED' ? 'N/A' : v;
}
export function legacyAav(v: AavResult): string {
  return v === 'PARTIAL_MATCH' ? 'APPROVED' : v === 'NOT_SUPPORTED' ? 'N/A' : v;
}
