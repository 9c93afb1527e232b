import { z } from 'zod';
import { trustedProxies } from '../shared/trust-proxy';

/**
 * The building blocks of the configuration schema (src/config/config.<group>.ts): value parsers and the registry each
 * variable's documentation is kept in.
 */

export interface ConfigProblem {
  variable: string;
  problem: string;
}

/** What a group's variables parse to. */
export type EnvOf<S extends z.ZodRawShape> = z.output<z.ZodObject<S>>;

export const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be ≥ ${min}`).max(max, `must be ≤ ${max}`));
export const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL (${protocols.map((p) => p.replace(':', '')).join(', ')})`,
    );
export const trustedProxyEntry = (p: string): boolean => {
  try {
    trustedProxies([p]);
    return true;
  } catch {
    return false;
  }
};
export const nonEmpty = z.string().trim().min(1, 'must not be empty');
export const httpUrl = url(['http:', 'https:']);
export const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['1', '0', 'true', 'false', 'yes', 'no'].includes(v), 'must be true or false')
  .transform((v) => ['1', 'true', 'yes'].includes(v));

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** A loopback URL: traffic that never leaves the host (a local sandbox, or a TLS-terminating sidecar). */
export const isLoopbackUrl = (v: string): boolean => LOOPBACK.has(new URL(v).hostname);

/**
 * The configuration reference: each variable's section and description, registered next to its definition.
 * `npm run docs:config` renders docs/configuration.md, the README's summary table and .env.example from it (and
 * from the sandbox's own variables, packages/sandbox/src/sandbox.config.ts); test/unit/config-docs.test.ts fails on drift.
 */
export interface VariableDoc {
  group: ConfigGroup;
  /** Markdown (code spans; a `|` is escaped when rendered into a table). */
  description: string;
  /** The default as the reference shows it, when the schema's own default is absent or not the whole story. */
  default?: string;
  /** The value .env.example shows (otherwise the schema's default, or empty). */
  example?: string;
  /** A short line for the README's table; only variables with one are listed there. */
  summary?: string;
}

/** Sections of the reference, in order. */
export const CONFIG_GROUPS = {
  server: 'Server',
  database: 'Database and pub/sub',
  auth: 'Caller authentication',
  upstream: 'Upstream APIs',
  webhooks: 'Webhooks from the remittances platform',
  saga: 'Transfer saga',
  transfers: 'Transfers, cards and banks',
  graphql: 'GraphQL limits, budgets and execution',
  observability: 'Metrics and tracing',
  sandbox: 'Built-in sandbox',
} as const;
export type ConfigGroup = keyof typeof CONFIG_GROUPS;

/** The registry the schema's fields are documented in (metadata only: parsing is unaffected). */
export const configDocs = z.registry<VariableDoc>();
export const doc = (group: ConfigGroup, description: string, extra: Omit<VariableDoc, 'group' | 'description'> = {}): VariableDoc => ({
  group,
  description,
  ...extra,
});
