import { clientKey } from '../../src/shared/client-address';
import { MemoryWindows } from '../../src/shared/rate-limit';

describe('clientKey', () => {
  it.each([
    ['198.51.100.7', 64, '198.51.100.7'],
    ['::ffff:198.51.100.7', 64, '198.51.100.7'],
    ['::FFFF:c633:6407', 64, '198.51.100.7'],
    ['2001:db8:1:2:3:4:5:6', 64, '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', 64, '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:ffff::', 64, '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::9]', 64, '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 64, 'fe80::/64'],
    ['2001:db8:1:2:3:4:5:6', 48, '2001:db8:1::/48'],
    ['2001:db8:1:2:3:4:5:6', 56, '2001:db8:1::/56'],
    ['2001:db8:1:2ff:3:4:5:6', 56, '2001:db8:1:200::/56'],
    ['2001:db8:1:2:3:4:5:6', 128, '2001:db8:1:2:3:4:5:6/128'],
    ['::1', 64, '::/64'],
    ['64:ff9b::198.51.100.7', 96, '64:ff9b::/96'],
    ['', 64, ''],
    ['not-an-address', 64, 'not-an-address'],
  ])('%s /%i → %s', (address, prefix, key) => {
    expect(clientKey(address, prefix)).toBe(key);
  });

  it('every address of one /64 has one key; the next /64 another', () => {
    const keys = new Set(Array.from({ length: 300 }, (_, i) => clientKey(`2001:db8:0:7:${i.toString(16)}:${(i * 7).toString(16)}::1`, 64)));
    expect([...keys]).toEqual(['2001:db8:0:7::/64']);
    expect(clientKey('2001:db8:0:8::1', 64)).not.toBe('2001:db8:0:7::/64');
  });
});

describe('in-memory windows under a churn of keys', () => {
  afterEach(() => jest.useRealTimers());

  it('keep at most maxKeys windows; a live window is never dropped, so no churn hands a key a fresh budget', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const w = new MemoryWindows({ points: 2, durationS: 60 }, 100);
    try {
      w.consume('known', 2); // at its limit
      for (let i = 0; i < 10_000; i++) w.consume(`k${i}`, 1);
      expect(w.size).toBe(100);
      // the churn did not reset the key counted before it
      expect(w.consume('known', 1)).toEqual(expect.objectContaining({ allowed: false }));
      // keys that found the table full share one window: the churn itself is one budget
      expect(w.consume('newcomer-a', 1)).toEqual(expect.objectContaining({ allowed: false }));
      expect(w.consume('newcomer-b', 1)).toEqual(expect.objectContaining({ allowed: false }));
      // once the windows have ended, a full table is swept and keys get their own again
      jest.setSystemTime(1_000_000 + 61_000);
      expect(w.consume('newcomer-a', 1)).toEqual({ allowed: true });
      expect(w.consume('newcomer-a', 1)).toEqual({ allowed: true });
      expect(w.consume('newcomer-a', 1)).toEqual(expect.objectContaining({ allowed: false }));
      expect(w.size).toBeLessThanOrEqual(100);
    } finally {
      w.close();
    }
  });
});
