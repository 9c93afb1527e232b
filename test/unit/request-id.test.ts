import { requestIdGenerator } from '../../src/http/request-id';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are version 4 UUIDs, all different across many batches of random bytes, every free digit taking every value', () => {
    const next = requestIdGenerator();
    const ids = Array.from({ length: 10_000 }, next);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
    // the 30 digits that are neither a dash, the version nor the variant: each seen with all 16 values
    const free = [...Array(36).keys()].filter((i) => ![8, 13, 14, 18, 19, 23].includes(i));
    for (const i of free) expect(new Set(ids.map((id) => id[i])).size).toBe(16);
    // the variant digit takes its four values
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(['8', '9', 'a', 'b']));
  });

  it('two generators do not repeat each other', () => {
    const a = requestIdGenerator();
    const b = requestIdGenerator();
    const fromA = new Set(Array.from({ length: 1000 }, a));
    for (let i = 0; i < 1000; i++) expect(fromA.has(b())).toBe(false);
  });
});
