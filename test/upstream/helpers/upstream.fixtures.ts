import { randomUUID } from 'node:crypto';
import type { PullPushPaymentRequest } from '../../../src/upstream/gateway/gateway.types';

export const customer = (lastName = 'Silva') => ({
  firstName: 'Ana',
  lastName,
  phoneNumber: '+5511999990000',
  documentNumber: '12345678901',
  documentType: 'NATIONAL_ID',
  email: 'ana.silva@example.com',
  countryCodeAlpha3: 'USA',
});

export const address = () => ({
  stateCode: 'CA',
  city: 'San Francisco',
  line1: '1 Market St',
  state: 'California',
  zipCode: '94105',
});

export function paymentRequest(
  over: Partial<PullPushPaymentRequest> & { cardToken?: string; senderLastName?: string } = {},
): PullPushPaymentRequest {
  const { cardToken, senderLastName, ...rest } = over;
  return {
    externalPaymentId: `pay-${randomUUID()}`,
    ipAddress: '203.0.113.7',
    amount: { total: '100.10', currency: 'USD' },
    recipientAmount: { total: '501.73', currency: 'BRL' },
    exchangeRate: '5.0123',
    sender: {
      customer: customer(senderLastName),
      customerAddress: address(),
      source: { type: 'CARD', card: { token: cardToken ?? randomUUID() } },
    },
    recipient: {
      customer: { ...customer('Souza'), countryCodeAlpha3: 'BRA' },
      customerAddress: address(),
      destination: { type: 'PIX', pix: { keyType: 'EMAIL', key: 'joao.souza@example.com' } },
    },
    ...rest,
  };
}

export const paymentResponse = (externalPaymentId: string, over: Record<string, unknown> = {}) => ({
  paymentId: `p_${externalPaymentId}`,
  parentPaymentId: `p_${externalPaymentId}`,
  externalPaymentId,
  amount: 100.1,
  created: '2026-01-01 00:00:00',
  approved: true,
  message: 'approved',
  automaticReversed: false,
  status: 'AUTHORIZED',
  captured: false,
  voided: false,
  ...over,
});
