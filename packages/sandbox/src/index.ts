/**
 * @remittance-bff/sandbox: the simulated upstream APIs (payments gateway, remittances platform,
 * verification-session API) and their control API, on one port.
 *
 * A development dependency of the service: loaded only by its sandbox loader when no upstream base URL is
 * configured, used by the tests, and run alone by `npm run sandbox` (sandbox.main.ts). Production installs
 * (`npm ci --omit=dev`) and the Docker image do not contain it.
 */
export { startSandbox } from './sandbox.server';
export type { RunningSandbox, SandboxServerOptions } from './sandbox.server';
export { DEFAULT_OPTIONS, SandboxContext } from './sandbox.context';
export type {
  PaymentFacts,
  SandboxCall,
  SandboxFaults,
  SandboxOptions,
  SandboxService,
  SandboxVerificationClient,
} from './sandbox.context';
export { isAbaRoutingNumber } from './gateway/gateway.validate';
export { SANDBOX_ONLY_VARIABLES } from './sandbox.config';
export type { SandboxVariableDoc } from './sandbox.config';
