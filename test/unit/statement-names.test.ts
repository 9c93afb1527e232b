import { statementNamer } from '../../src/db/statement-names';

describe('statementNamer (PostgreSQL prepared statements)', () => {
  test('a text is named on its second use, then keeps its name; distinct texts get distinct names', () => {
    const name = statementNamer(10)!;
    expect(name({ sql: 'SELECT 1' })).toBeUndefined(); // once: unnamed
    const a = name({ sql: 'SELECT 1' });
    expect(name({ sql: 'SELECT 2' })).toBeUndefined();
    const b = name({ sql: 'SELECT 2' });
    expect(a).toMatch(/^bff_\d+$/);
    expect(b).toMatch(/^bff_\d+$/);
    expect(a).not.toBe(b);
    expect(name({ sql: 'SELECT 1' })).toBe(a);
    expect(name({ sql: 'SELECT 2' })).toBe(b);
  });

  test('texts used once never take a slot', () => {
    const name = statementNamer(2)!;
    for (let i = 0; i < 1_000; i++) expect(name({ sql: `SELECT ${i} IN (…)` })).toBeUndefined();
    name({ sql: 'hot' });
    expect(name({ sql: 'hot' })).toBe('bff_1');
  });

  test('bounded: beyond `max` named texts, others are sent unnamed, and onFull is called once', () => {
    let full = 0;
    const name = statementNamer(2, () => full++)!;
    const twice = (sql: string) => (name({ sql }), name({ sql }));
    const first = [twice('a'), twice('b')];
    expect(first).toEqual(['bff_1', 'bff_2']);
    for (let i = 0; i < 100; i++) expect(twice(`other ${i}`)).toBeUndefined();
    expect(full).toBe(1);
    // the first two keep their names
    expect([name({ sql: 'a' }), name({ sql: 'b' })]).toEqual(first);
  });

  test('0 turns it off: no generator at all (every statement unnamed)', () => {
    expect(statementNamer(0)).toBeUndefined();
  });
});
