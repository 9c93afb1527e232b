/**
 * What production requires beyond real dependencies (database, key, upstream URLs): the token issuer and audience,
 * PUBLIC_URL, every upstream credential (production has no sandbox defaults) and a support contact for receipts. For loadConfig-level tests.
 */
export const PRODUCTION_REQUIRED: Record<string, string> = {
  AUTH_ISSUER: 'https://idp.example',
  AUTH_AUDIENCE: 'remittance-bff',
  PUBLIC_URL: 'https://bff.example',
  GATEWAY_CLIENT_ID: 'gw-id',
  GATEWAY_CLIENT_SECRET: 'gw-secret',
  REMITTANCES_TENANT_ID: 'tenant',
  REMITTANCES_API_KEY: 'rp-key',
  REMITTANCES_AGENT_ID: 'agent',
  REMITTANCES_AGENT_API_KEY: 'agent-key',
  VERIFICATION_CLIENT_ID: 'vs-id',
  VERIFICATION_CLIENT_SECRET: 'vs-secret',
  SUPPORT_EMAIL: 'support@bff.example',
};
