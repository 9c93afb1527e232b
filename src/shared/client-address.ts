import { isIP } from 'node:net';

/**
 * The key one client is counted under (per-address budgets, the connection cap): an IPv4 address as it is (an
 * IPv4-mapped IPv6 address, `::ffff:a.b.c.d`, as its IPv4 address), an IPv6 address as its network of `ipv6Prefix`
 * bits (`2001:db8:1:2::/64`) — one subscriber is usually given a whole /64, so counting each address would let one
 * client take 2^64 budgets. Anything else (no address) is counted as it is.
 */
export function clientKey(address: string, ipv6Prefix: number): string {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return address;
  const groups = ipv6Groups(bare);
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff)
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  const masked = groups.map((g, i) => {
    const bits = Math.min(16, Math.max(0, ipv6Prefix - i * 16));
    return bits === 16 ? g : bits === 0 ? 0 : g & (0xffff << (16 - bits)) & 0xffff;
  });
  return `${compress(masked)}/${ipv6Prefix}`;
}

/** The eight 16-bit groups of a valid IPv6 address (a zone index dropped, a trailing dotted IPv4 part included). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The usual short form: the longest run of two or more zero groups as `::`. */
function compress(groups: number[]): string {
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}
