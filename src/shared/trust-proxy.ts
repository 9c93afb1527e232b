import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/**
 * Which peers may tell us the client's address (X-Forwarded-For). Built from TRUST_PROXY: addresses and CIDR
 * ranges of the load balancers in front of the service. Empty = trust nobody: the client is the TCP peer.
 */
export interface TrustedProxies {
  /** Fastify's trustProxy (called per hop: true = that hop is a trusted proxy), or false when nobody is trusted. */
  readonly fastify: false | ((address: string, hop: number) => boolean);
  /** The client address of a raw request (websocket upgrades), by the same rule as Fastify's request.ip. */
  clientIp(req: IncomingMessage): string;
  /** Whether this peer is one of the proxies (it carries many clients' connections). */
  isProxy(address: string): boolean;
}

const unmapped = (a: string) => (a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a);

/** Parses entries like "10.0.0.1", "10.0.0.0/8", "fd00::/8"; throws on anything else (config reports it). */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const raw of entries) {
    const [addr, bits, extra] = raw.split('/');
    const family = isIP(addr ?? '');
    if (!family || extra !== undefined) throw new Error(`not an IP address or CIDR range: ${raw}`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(addr!, type);
    else {
      const prefix = Number(bits);
      if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`not an IP address or CIDR range: ${raw}`);
      list.addSubnet(addr!, prefix, type);
    }
  }
  const trusted = (a: string): boolean => {
    const ip = unmapped(a);
    const family = isIP(ip);
    return family !== 0 && list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  };
  return {
    fastify: entries.length ? (address) => trusted(address) : false,
    isProxy: (address) => entries.length > 0 && trusted(address),
    clientIp(req) {
      let ip = req.socket.remoteAddress ?? '';
      if (!entries.length) return ip;
      const header = req.headers['x-forwarded-for'];
      const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean);
      // from the nearest hop outwards, while the address that handed us the request is a trusted proxy
      while (trusted(ip) && hops.length) ip = hops.pop()!;
      return ip;
    },
  };
}
