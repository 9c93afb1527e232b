import { z } from 'zod';
import { authConfig, authProblems, type AuthConfig } from './config/config.auth';
import { databaseConfig, type DatabaseGroupConfig } from './config/config.database';
import { configDocs, type ConfigProblem, type VariableDoc } from './config/config.fields';
import { graphqlConfig, type GraphQLLimitsConfig } from './config/config.graphql';
import { observabilityConfig, type ObservabilityConfig } from './config/config.observability';
import { productionProblems } from './config/config.production';
import { sagaConfig, type SagaConfig } from './config/config.saga';
import { schema } from './config/config.schema';
import { serverConfig, type ServerConfig } from './config/config.server';
import { transfersConfig, type TransfersConfig } from './config/config.transfers';
import {
  clientCertificateProblems,
  credentialProblems,
  resolveUpstreams,
  SANDBOX_CREDENTIALS,
  upstreamConfig,
  upstreamUrlProblems,
  type UpstreamConfig,
} from './config/config.upstream';
import { webhooksConfig, type WebhooksConfig } from './config/config.webhooks';

/**
 * Every setting comes from the environment, parsed and validated once at start.
 * `loadConfig` throws a ConfigError listing every bad variable and why; `main.ts` prints it and exits 1.
 * Each variable is documented where it is defined (src/config/config.<group>.ts); docs/configuration.md and
 * .env.example are generated from that (`npm run docs:config`).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: ConfigProblem[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  - ${p.variable}: ${p.problem}`).join('\n'),
    );
  }
}

export interface Config
  extends
    ServerConfig,
    DatabaseGroupConfig,
    UpstreamConfig,
    AuthConfig,
    SagaConfig,
    WebhooksConfig,
    TransfersConfig,
    GraphQLLimitsConfig,
    ObservabilityConfig {}

const KNOWN = Object.keys(schema.shape);

/** A variable of the service's schema with its documentation, its default as the reference shows it and its .env.example value. */
interface ServiceVariable {
  name: string;
  doc: VariableDoc | undefined;
  /** Markdown; undefined = no default. */
  default: string | undefined;
  example: string;
}

/** The service's variables in schema order, each with its documentation (the configuration reference's source). */
export function serviceVariables(): ServiceVariable[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const d = configDocs.get(field);
    const parsed = (field as z.ZodType).safeParse(undefined);
    const value = parsed.success ? parsed.data : undefined;
    const primitive = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    const sandboxValue = (SANDBOX_CREDENTIALS as Record<string, string>)[name];
    const shown =
      sandboxValue !== undefined
        ? `\`${sandboxValue}\` while the upstreams are a sandbox`
        : primitive !== undefined
          ? `\`${primitive}\``
          : undefined;
    return { name, doc: d, default: d?.default ?? shown, example: d?.example ?? primitive ?? '' };
  });
}

/** Each variable's first parse problem, in schema order. */
function parseProblems(error: z.ZodError): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of error.issues) {
    const variable = String(issue.path[0] ?? '?');
    const problem = issue.code === 'invalid_value' ? `must be one of ${(issue.values as unknown[]).join(', ')}` : issue.message;
    if (!problems.some((p) => p.variable === variable)) problems.push({ variable, problem });
  }
  return problems;
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, as most deployment tools write them for "no value".
  const raw: Record<string, string> = {};
  for (const key of KNOWN) {
    const v = source[key];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(parseProblems(parsed.error));
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const upstreams = resolveUpstreams(e, production);

  const problems = [
    ...upstreamUrlProblems(upstreams),
    ...(production ? productionProblems(e, upstreams) : credentialProblems(upstreams)),
    ...authProblems(e),
    ...clientCertificateProblems(e),
  ];
  if (problems.length) throw new ConfigError(problems);

  return {
    ...serverConfig(e),
    ...databaseConfig(e),
    ...upstreamConfig(e, upstreams),
    ...authConfig(e),
    ...sagaConfig(e),
    ...webhooksConfig(e),
    ...transfersConfig(e, production),
    ...graphqlConfig(e),
    ...observabilityConfig(e, production),
  };
}
