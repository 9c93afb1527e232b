import { randomFillSync } from 'node:crypto';

const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** Random bytes for this many ids are drawn at once (as `crypto.randomUUID` does). */
const BATCH = 128;

/**
 * A generator of random (version 4) UUIDs for request ids, as `crypto.randomUUID` makes them, but each returned as one
 * flat string: randomUUID joins 20 pieces into a string that is flattened again by the first regular expression or
 * hash that reads it — on every response, Node's header value check. Here the 36 characters are written into a
 * buffer and read out once.
 */
export function requestIdGenerator(): () => string {
  const random = Buffer.alloc(16 * BATCH);
  const text = Buffer.alloc(36);
  let next = BATCH;
  return () => {
    if (next === BATCH) {
      randomFillSync(random);
      next = 0;
    }
    const at = next++ * 16;
    let j = 0;
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) text[j++] = 0x2d; // '-'
      let b = random[at + i]!;
      if (i === 6)
        b = (b & 0x0f) | 0x40; // version 4
      else if (i === 8) b = (b & 0x3f) | 0x80; // RFC 9562 variant
      text[j++] = HEX[b >> 4]!;
      text[j++] = HEX[b & 0x0f]!;
    }
    return text.toString('latin1', 0, 36);
  };
}
