/**
 * Where a 3-D Secure challenge sends the cardholder's browser back when it is done (createTransfer's and
 * checkCard's `threeDSReturnUrl`). Only hosts the operator lists (THREE_DS_RETURN_URL_HOSTS) are accepted, so the
 * service never turns the issuer's page into an open redirect:
 * - `https://` on a listed host (any port, no user or password in the URL);
 * - outside production also a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`), over `http://` or `https://`,
 *   listed or not (an app on the developer's machine);
 * - in production with no list, nothing (fail closed).
 * The check runs before anything else of the request; its message never repeats the URL.
 */

export interface ReturnUrlPolicy {
  /** Lower-case host names (THREE_DS_RETURN_URL_HOSTS). */
  hosts: readonly string[];
  /** Production: no loopback, no http. */
  production: boolean;
}

const MAX_LENGTH = 2048;

/** A host name as THREE_DS_RETURN_URL_HOSTS lists it (lower case, no scheme, port, path or wildcard). */
export const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

const isLoopback = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);

/** Why `value` is not an acceptable return URL under `policy` (a message that does not repeat it), or null. */
export function returnUrlProblem(value: string, policy: ReturnUrlPolicy): string | null {
  const rule = policy.production
    ? 'must be an https URL on a host this service accepts'
    : 'must be an https URL on a host this service accepts, or an http(s) URL on a loopback address';
  if (value.length > MAX_LENGTH) return `threeDSReturnUrl must be at most ${MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `threeDSReturnUrl ${rule}`;
  }
  if (url.username || url.password) return 'threeDSReturnUrl must not carry a user name or password';
  const host = url.hostname.toLowerCase();
  const local = !policy.production && isLoopback(host);
  if (url.protocol === 'https:' && (policy.hosts.includes(host) || local)) return null;
  if (url.protocol === 'http:' && local) return null;
  return `threeDSReturnUrl ${rule}`;
}

/**
 * The challenge page with the return URL for the sandbox's access control server: a `returnUrl` query parameter
 * (the gateway's documents show no way to pass one; this is the sandbox's documented decision, docs/sandbox.md).
 * Without a return URL, the page as the gateway gave it.
 */
export function withReturnUrl(redirectUrl: string, returnUrl: string | null | undefined): string {
  if (!returnUrl) return redirectUrl;
  const u = new URL(redirectUrl);
  u.searchParams.set('returnUrl', returnUrl);
  return u.toString();
}
