/**
 * Is this error the database being out of reach (down, restarting, connections exhausted or cut) rather than a
 * fault of the request or a bug? Such errors are transient: the API answers SERVICE_UNAVAILABLE ("retry, with the
 * same idempotencyKey"), not INTERNAL_SERVER_ERROR. Errors arrive in several shapes, so every link of the `cause`
 * and `originalError` chains is examined:
 * - Prisma's known request errors: P1001 (cannot reach the server), P1002 (timed out), P1008 (operation timed
 *   out), P1017 (server closed the connection), P2024 (timed out fetching a connection from the pool), P2028
 *   (transaction API error: could not start in time / already closed);
 * - driver adapter errors (`cause.kind`): DatabaseNotReachable, ConnectionClosed, SocketTimeout,
 *   TooManyConnections, TransactionAlreadyClosed;
 * - PostgreSQL SQLSTATEs of class 08 (connection exception), 57P01–57P03 (admin shutdown, crash shutdown, cannot
 *   connect now) and 53300 (too many connections), as `code` of a node-postgres error;
 * - socket-level errors of the driver (ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT, EHOSTUNREACH, ENOTFOUND, …) and
 *   node-postgres's "Connection terminated" messages, and pg-pool's "timeout exceeded when trying to connect" (every
 *   connection busy for longer than its connection timeout).
 */
import { keptMessage, StatementError } from './raw-sql';

const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|terminating connection due to administrator command|the database system is (starting up|shutting down)|Timed out fetching a new connection|Unable to start a transaction in the given time|Can't reach database server/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  // every link: `cause`, and `originalError` (a GraphQLError wrapping it, as graphql-ws hands a subscription's error)
  const links: unknown[] = [error];
  for (let e = links.pop(); e !== undefined; e = links.pop()) {
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const { cause, originalError } = e as { cause?: unknown; originalError?: unknown };
    if (cause) links.push(cause);
    if (originalError) links.push(originalError);
    const { code, kind, message, originalCode } = e as { code?: unknown; kind?: unknown; message?: unknown; originalCode?: unknown };
    if (typeof code === 'string' && (PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || SQLSTATE.test(code))) return true;
    if (typeof originalCode === 'string' && SQLSTATE.test(originalCode)) return true;
    if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
    if (kind === 'postgres' && typeof code === 'string' && SQLSTATE.test(code)) return true;
    if (typeof message === 'string' && MESSAGES.test(message)) return true;
  }
  return false;
}

/**
 * A statement the database refused, as it may be kept (logs, stored errors): PostgreSQL's SQLSTATE and its own
 * message without a value it quotes (keptMessage) — from db.sql's StatementError or from Prisma's error (its driver
 * adapter's cause: PGlite's adapter gives original…, adapter-pg code and message) —, never Prisma's wrapping of it
 * nor the row PostgreSQL's detail shows. A Prisma error without an SQLSTATE: its own code only. Null: not a refusal.
 */
export function describeRefusal(err: unknown): string | null {
  if (err instanceof StatementError) return `${err.message} (SQLSTATE ${err.code})`;
  const { code, meta } = (err ?? {}) as { code?: unknown; meta?: { driverAdapterError?: { cause?: Record<string, unknown> } } };
  if (typeof code !== 'string' || !/^P\d{4}$/.test(code)) return null;
  const cause = meta?.driverAdapterError?.cause ?? {};
  const sqlstate = cause.originalCode ?? cause.code;
  const message = cause.originalMessage ?? cause.message;
  if (typeof sqlstate !== 'string' || !/^[0-9A-Z]{5}$/.test(sqlstate)) return `database error ${code}`;
  return `${typeof message === 'string' ? `${keptMessage(sqlstate, message)} ` : ''}(SQLSTATE ${sqlstate})`;
}
