import { windowOfPages } from '../../src/shared/page';

/** A list of `n` items served in pages of the size asked, recording which pages were asked for. */
function list(n: number) {
  const asked: [number, number][] = [];
  const fetch = (page: number, size: number) => {
    asked.push([page, size]);
    const items = Array.from({ length: n }, (_, i) => i).slice(page * size, page * size + size);
    return Promise.resolve({ items, total: n });
  };
  const read = { items: (p: { items: number[] }) => p.items, total: (p: { total: number }) => p.total, item: (i: number) => `#${i}` };
  return { asked, fetch, read };
}

test('an aligned window is one page', async () => {
  const l = list(10);
  expect(await windowOfPages({ offset: 4, limit: 4 }, l.fetch, l.read)).toEqual({ items: ['#4', '#5', '#6', '#7'], offset: 4, total: 10 });
  expect(l.asked).toEqual([[1, 4]]);
});

test('a window across two pages reads both and keeps its slice', async () => {
  const l = list(10);
  expect(await windowOfPages({ offset: 3, limit: 4 }, l.fetch, l.read)).toEqual({ items: ['#3', '#4', '#5', '#6'], offset: 3, total: 10 });
  expect(l.asked).toEqual([
    [0, 4],
    [1, 4],
  ]);
});

test('a short first page ends the list: the next page is not asked for', async () => {
  const l = list(3);
  expect(await windowOfPages({ offset: 2, limit: 4 }, l.fetch, l.read)).toEqual({ items: ['#2'], offset: 2, total: 3 });
  expect(l.asked).toEqual([[0, 4]]);
});

test('a failed page fails the window', async () => {
  const fetch = (page: number) => (page === 0 ? Promise.resolve({ items: [0, 1, 2, 3], total: 9 }) : Promise.reject(new Error('down')));
  await expect(windowOfPages({ offset: 2, limit: 4 }, fetch, list(0).read)).rejects.toThrow('down');
});
