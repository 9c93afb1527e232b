/**
 * A card funds only the transfers of the customer who checked it (checkCard) recently, and a linked account token
 * only its owner's: tests that create card-funded transfers check the card as that customer first.
 */
const CHECK_CARD = 'mutation($i: CheckCardInput!) { checkCard(input: $i) { status } }';

/** A KYC person that can send (createPerson input): the sender of a transfer is built from it. */
export const personInput = (lastName = 'Doe') => ({
  type: 'INDIVIDUAL',
  firstName: 'Jane',
  lastName,
  identificationType: 'SSN',
  identification: '123-45-6789',
  email: 'jane@example.com',
  phoneNumber: '+14155550100',
  address: { line1: '1 Main St', city: 'Springfield', region: 'California', regionCode: 'CA', postalCode: '94105', countryCode: 'US' },
});

/** The recipient of the test transfers: a PIX key in Brazil. */
export const RECIPIENT = {
  customer: { firstName: 'Maria', lastName: 'Silva' },
  address: { line1: 'Rua A 1', city: 'Sao Paulo', region: 'Sao Paulo', regionCode: 'SP', postalCode: '01000-000', countryCode: 'BR' },
  destination: { type: 'PIX', pixKeyType: 'EMAIL', pixKey: 'maria@example.com' },
};

/** A persons row as createPerson stores an APPROVED sender (for tests that seed the database directly). */
export const approvedPersonRow = (ownerId: string, lastName = 'Doe') => ({
  ownerId,
  status: 'APPROVED',
  countryCode: 'US',
  details: personInput(lastName),
});

/**
 * A createTransfer input whose sender must have this last name (sandbox magic such as Compliance-Review): the
 * sender is the person, so the transfer needs a person of that name. Kept off the GraphQL variables
 * (non-enumerable); checkFundingAs creates that person and puts its id in the input.
 */
export function withSenderLastName<T extends object>(input: T, lastName: string | undefined): T {
  if (lastName) Object.defineProperty(input, 'senderLastName', { value: lastName, enumerable: false });
  return input;
}

/**
 * checkCard as the caller (the result does not matter: the check binds the token to the caller). The cardholder is
 * a person of the caller: `personId`, or the caller's default sender (created once per service and caller).
 */
export async function checkCardAs(url: string, token: string, cardToken: string, personId?: string): Promise<boolean> {
  const holder = personId ?? (await senderId(url, token, 'Doe', `${url}|${token}|Doe`));
  if (!holder) return false;
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: CHECK_CARD, variables: { i: { cardToken, personId: holder } } }),
  }).catch(() => null); // a dead service (chaos): false, and the caller retries
  const text = (await res?.text().catch(() => null)) ?? null;
  return res !== null && res.status < 500 && text !== null && !/SERVICE_UNAVAILABLE|UPSTREAM_UNAVAILABLE/.test(text);
}

/** The card of a createTransfer input, if it is card-funded. */
export const cardOf = (input: unknown): string | null => {
  const f = (input as { funding?: { type?: string; cardToken?: string } } | null)?.funding;
  return f?.type === 'CARD' && f.cardToken ? f.cardToken : null;
};

/**
 * The sender created for a caller and last name, by token: instances of one service share its database, so a
 * request sent to either names the same person, and concurrent requests share one createPerson (else the same
 * key would carry another personId: IDEMPOTENCY_KEY_REUSED). A failed attempt is forgotten (a retry creates it).
 */
const senders = new Map<string, Promise<string | null>>();

async function createSender(url: string, token: string, lastName: string): Promise<string | null> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      query: 'mutation($i: PersonInput!) { createPerson(input: $i) { id } }',
      variables: { i: personInput(lastName) },
    }),
  }).catch(() => null); // a dead service (chaos): the createTransfer that follows gets the same answer
  const id = ((await res?.json().catch(() => null)) as { data?: { createPerson?: { id?: string } } } | null)?.data?.createPerson?.id;
  return id ?? null;
}

/**
 * Before createTransfer(input) as `token`: check its card, if card-funded; create its sender, if it names one
 * (withSenderLastName). false when either got no answer (a dead service): the input must not be sent, since it
 * would go out unchecked, or with the default sender instead of the one it names.
 */
export async function checkFundingAs(url: string, token: string, input: unknown): Promise<boolean> {
  const lastName = (input as { senderLastName?: string } | null)?.senderLastName;
  if (lastName) {
    const id = await senderId(url, token, lastName, `${token}|${lastName}`);
    if (!id) return false;
    (input as { personId: string }).personId = id;
  }
  const card = cardOf(input);
  const personId = (input as { personId?: string } | null)?.personId;
  return !card || checkCardAs(url, token, card, personId);
}

/** The id of the caller's sender of that last name, created once per cache key (a failed attempt is forgotten). */
async function senderId(url: string, token: string, lastName: string, key: string): Promise<string | null> {
  let sender = senders.get(key);
  if (!sender) {
    sender = createSender(url, token, lastName);
    senders.set(key, sender);
  }
  const id = await sender;
  if (!id && senders.get(key) === sender) senders.delete(key);
  return id;
}
