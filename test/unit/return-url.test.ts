/** Which 3-D Secure return URLs an app may give (THREE_DS_RETURN_URL_HOSTS): no open redirect, fail closed in production. */
import { returnUrlProblem, withReturnUrl } from '../../src/shared/return-url';

const dev = { hosts: ['app.example.com'], production: false };
const prod = { hosts: ['app.example.com'], production: true };
const prodNoList = { hosts: [], production: true };

it('https on a listed host passes (any port, path, query); outside production loopback too, over http or https', () => {
  for (const ok of ['https://app.example.com/3ds-done?t=1', 'https://APP.example.com:8443/x', 'https://app.example.com'])
    expect([ok, returnUrlProblem(ok, dev), returnUrlProblem(ok, prod)]).toEqual([ok, null, null]);
  for (const local of ['http://localhost:3000/done', 'http://127.0.0.1/done', 'https://[::1]:8443/done', 'http://127.8.9.10/'])
    expect([local, returnUrlProblem(local, dev), returnUrlProblem(local, prod)]).toEqual([local, null, expect.any(String)]);
});

it('anything else is refused, with a message that never repeats the URL', () => {
  const refused = [
    'http://app.example.com/done', // http off loopback
    'https://evil.example/done', // not listed
    'https://app.example.com.evil.example/', // a listed name as a prefix
    'https://evil.example/?next=https://app.example.com', // a listed name elsewhere in the URL
    'https://user:pw@app.example.com/', // credentials
    'javascript:alert(1)',
    'myapp://3ds-done',
    '//app.example.com/done',
    'not a url',
    `https://app.example.com/${'x'.repeat(2100)}`,
  ];
  for (const url of refused) {
    const problem = returnUrlProblem(url, dev);
    expect([url, problem]).toEqual([url, expect.stringMatching(/^threeDSReturnUrl /)]);
    expect(problem).not.toContain('evil');
    expect(problem).not.toContain('example');
  }
});

it('production with no list refuses every return URL (fail closed)', () => {
  for (const url of ['https://app.example.com/done', 'http://localhost/done', 'https://localhost/done'])
    expect([url, returnUrlProblem(url, prodNoList)]).toEqual([url, expect.any(String)]);
});

it('withReturnUrl adds the returnUrl parameter to the challenge page (kept as it is without one)', () => {
  const page = 'http://127.0.0.1:4010/gateway/3ds/abc';
  expect(withReturnUrl(page, null)).toBe(page);
  const u = new URL(withReturnUrl(page, 'https://app.example.com/done?x=1&y=2'));
  expect(u.origin + u.pathname).toBe(page);
  expect(u.searchParams.get('returnUrl')).toBe('https://app.example.com/done?x=1&y=2');
});
