/**
 * The languages customer messages are written in, and which one a request gets: its `Accept-Language` (RFC 9110
 * §12.5.4), language ranges matched on their primary subtag (pt-BR → pt, es-419 → es), the highest q-value first
 * (the earlier range on a tie), q=0 refusing a language; `*` stands for any language not named. Nothing acceptable
 * (or no header): English.
 *
 * A new language: its table beside the others (messages.<tag>.ts), its tag here and in CATALOGS (index.ts).
 */
export const LANGUAGES = ['en', 'es', 'pt'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export const isLanguage = (tag: string): tag is Language => (LANGUAGES as readonly string[]).includes(tag);

/** At most this much of a header is read, and this many ranges: a long header costs no more than a short one. */
const MAX_HEADER_CHARS = 512;
const MAX_RANGES = 32;
const RANGE = /^(?:\*|[a-z]{1,8}(?:-[a-z0-9]{1,8})*)$/;
const QVALUE = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The language of an `Accept-Language` header (absent, empty or nothing we write: English). */
export function negotiateLanguage(header: string | readonly string[] | null | undefined): Language {
  const text = typeof header === 'string' ? header : header?.join(',');
  if (!text) return DEFAULT_LANGUAGE;
  /** The highest q-value each of our languages (and `*`) is asked with, in the order first named. */
  const wanted = new Map<Language | '*', number>();
  const refused = new Set<Language>();
  for (const entry of text.slice(0, MAX_HEADER_CHARS).split(',', MAX_RANGES)) {
    const [rawRange = '', ...params] = entry.split(';');
    const range = rawRange.trim().toLowerCase();
    if (!RANGE.test(range)) continue;
    let q: number | null = 1;
    for (const p of params) {
      const param = p.replace(/\s+/g, '').toLowerCase();
      if (!param.startsWith('q=')) continue; // other parameters are not ours to read
      const m = QVALUE.exec(param);
      q = m ? Number(m[1]) : null;
    }
    if (q === null) continue; // a malformed q-value: the range is ignored
    const tag = range === '*' ? '*' : range.split('-', 1)[0]!;
    if (tag !== '*' && !isLanguage(tag)) continue;
    if (q === 0) {
      // "pt;q=0" refuses Portuguese; "pt-PT;q=0" refuses only a variant we do not write separately
      if (tag !== '*' && tag === range) refused.add(tag);
      continue;
    }
    wanted.set(tag, Math.max(wanted.get(tag) ?? 0, q));
  }
  let best: Language | null = null;
  let bestQ = 0;
  for (const [tag, q] of wanted) {
    if (q <= bestQ) continue; // a tie goes to the range named first
    const lang = tag === '*' ? [DEFAULT_LANGUAGE, ...LANGUAGES].find((l) => !wanted.has(l) && !refused.has(l)) : tag;
    if (lang === undefined || refused.has(lang)) continue;
    best = lang;
    bestQ = q;
  }
  return best ?? DEFAULT_LANGUAGE;
}
