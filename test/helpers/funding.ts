/**
 * A card funds only the transfers of the customer who checked it (checkCard) recently, and a linked account token
 * only its owner's: tests that create card-funded transfers check the card as that customer first.
 */
const CHECK_CARD = 'mutation($i: CheckCardInput!) { checkCard(input: $i) { status } }';

/** A cardholder for checkCard (sandbox: any name passes). */
export const CARD_HOLDER = {
  firstName: 'Jane',
  lastName: 'Doe',
  email: 'jane@example.com',
  phoneNumber: '+14155550100',
  documents: [{ number: 'X1234567', type: 'PASSPORT', countryCode: 'US' }],
};

/** checkCard as the caller (the result does not matter: the check binds the token to the caller). */
export async function checkCardAs(url: string, token: string, cardTokenId: string): Promise<void> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: CHECK_CARD, variables: { i: { cardTokenId, sender: CARD_HOLDER } } }),
  }).catch(() => null); // a dead service (chaos): the createTransfer that follows gets the same answer
  await res?.text();
}

/** The card of a createTransfer input, if it is card-funded. */
export const cardOf = (input: unknown): string | null => {
  const f = (input as { funding?: { type?: string; cardTokenId?: string } } | null)?.funding;
  return f?.type === 'CARD' && f.cardTokenId ? f.cardTokenId : null;
};

/** Before createTransfer(input) as `token`: check its card, if card-funded. */
export async function checkFundingAs(url: string, token: string, input: unknown): Promise<void> {
  const card = cardOf(input);
  if (card) await checkCardAs(url, token, card);
}
