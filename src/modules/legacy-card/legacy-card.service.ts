import { createHash } from 'node:crypto';
import type { Caller } from '../../auth/auth.types';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import { AppError } from '../../shared/errors';
import type { FundingCredentials } from '../checks/checks.ports';
import { gatewayCheckAddress, type PostalAddress } from '../../shared/address';

interface LegacyCardCheckCommand {
  idempotencyKey: string;
  cardToken: string;
  firstName: string;
  lastName: string;
  email?: string;
  address?: PostalAddress;
}

/**
 * The legacy card check (POST /check-card-account), available only when CARD_CHECK_LEGACY_ENABLED is set
 * (the v2 check, checkCard, is the default). The gateway's externalPaymentId is derived from the caller and
 * their idempotency key, so repeating a request repeats the same check upstream (the gateway answers it
 * from its record) and two callers' keys never collide. Like checkCard, the card token is bound to the caller
 * (FundingCredentials): another customer's token is NOT_FOUND before the gateway is asked.
 */
export class LegacyCardService {
  constructor(
    private readonly gateway: GatewayClient,
    private readonly enabled: boolean,
    private readonly credentials: FundingCredentials,
  ) {}

  async check(caller: Caller, clientIp: string, c: LegacyCardCheckCommand) {
    if (!this.enabled) throw new AppError('FORBIDDEN', 'The legacy card check is not enabled on this deployment; use checkCard');
    await this.credentials.assertCheckable('card', c.cardToken, caller.userId);
    const r = await this.gateway.checkCardLegacy({
      externalPaymentId: externalIdFor(caller.userId, c.idempotencyKey),
      ipAddress: clientIp,
      sender: {
        firstName: c.firstName,
        lastName: c.lastName,
        ...(c.email ? { email: c.email } : {}),
        ...(c.address ? { address: gatewayCheckAddress(c.address, 'alpha3') } : {}),
        paymentMethod: { type: 'CARD', cardTokenId: c.cardToken },
      },
    });
    if (r.status !== 'REJECTED') await this.credentials.bind('card', c.cardToken, caller.userId); // as checkCard: a rejected check binds nothing
    return {
      paymentId: r.paymentId,
      status: r.status,
      redirectUrl: r.redirectAcsUrl || null,
      avsResult: r.avsResult ?? null,
      cvcResult: r.cvcResult ?? null,
      cardholderNameResult: r.aavCardholderNameResult ?? null,
      reasonCode: r.reasonCode ?? null,
    };
  }
}

/** A UUID-shaped id from sha256(caller, operation, key): stable per key, private to the caller. */
function externalIdFor(userId: string, key: string): string {
  const h = createHash('sha256').update(`${userId}\u0000checkCardLegacy\u0000${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
