/**
 * The rules of a recipient beyond its input type's own (class-validator on RecipientInput): what its destination
 * type requires. One function for every place a recipient is taken — createTransfer's inline recipient and
 * createRecipient's saved one — so both are refused alike, before anything is written or any upstream is called.
 */
import { isEmail, isUUID } from 'class-validator';
import { badField, badFields } from '../../shared/errors';
import type { RecipientDetails } from './transfer.columns';

/**
 * The PIX key formats of the gateway, by key type: a key of another form is refused by the gateway when the
 * payment is made (and by its alias directory), so it is refused here first.
 */
const PIX_KEYS: Record<string, { valid: (key: string) => boolean; form: string }> = {
  CPF: { valid: (k) => /^\d{11}$/.test(k), form: '11 digits, no punctuation' },
  CNPJ: { valid: (k) => /^\d{14}$/.test(k), form: '14 digits, no punctuation' },
  EMAIL: { valid: (k) => k.length <= 77 && isEmail(k), form: 'an e-mail address' },
  PHONE: { valid: (k) => /^\+55\d{10,11}$/.test(k), form: 'a Brazilian E.164 number, +55 and 10 or 11 digits' },
  EVP: { valid: (k) => isUUID(k), form: 'the random key, a UUID' },
};

/**
 * Refuses (BAD_USER_INPUT) a recipient whose destination lacks what its type needs or whose PIX key is not of its
 * type's form. `at`: where the recipient is in the caller's input argument (e.g. "recipient." for createTransfer's),
 * for the message and `extensions.fields` (paths under `input.`). Never repeats a value.
 */
export function assertRecipient(r: Pick<RecipientDetails, 'destination'>, at: string): void {
  const d = r.destination;
  const path = (field: string) => `input.${at}destination.${field}`;
  if (d.type === 'WALLET' && !d.walletId)
    throw badField(path('walletId'), 'REQUIRED', `${at}destination.walletId is required for a WALLET destination`);
  if (d.type === 'PIX') {
    if (!d.pixKeyType || !d.pixKey)
      throw badFields(`${at}destination.pixKeyType and pixKey are required for a PIX destination`, [
        ...(d.pixKeyType ? [] : [{ path: path('pixKeyType'), code: 'REQUIRED' as const }]),
        ...(d.pixKey ? [] : [{ path: path('pixKey'), code: 'REQUIRED' as const }]),
      ]);
    const rule = PIX_KEYS[d.pixKeyType];
    if (rule && !rule.valid(d.pixKey))
      throw badField(path('pixKey'), 'INVALID_FORMAT', `${at}destination.pixKey is not a ${d.pixKeyType} key: give ${rule.form}`);
  }
}
