/** What people type for a currency, mapped to its ISO 4217 code. */
const SYMBOLS: Record<string, string> = {
  US$: 'USD',
  C$: 'CAD',
  CA$: 'CAD',
  A$: 'AUD',
  AU$: 'AUD',
  NZ$: 'NZD',
  HK$: 'HKD',
  S$: 'SGD',
  R$: 'BRL',
  $: 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  '₩': 'KRW',
  '₽': 'RUB',
  '₺': 'TRY',
  '₪': 'ILS',
  '₱': 'PHP',
  '₫': 'VND',
  '฿': 'THB',
  zł: 'PLN',
};

const NAMES: Record<string, string> = {
  'us dollar': 'USD',
  'us dollars': 'USD',
  'american dollars': 'USD',
  'canadian dollar': 'CAD',
  'canadian dollars': 'CAD',
  'australian dollar': 'AUD',
  'australian dollars': 'AUD',
  'new zealand dollars': 'NZD',
  'hong kong dollars': 'HKD',
  'singapore dollars': 'SGD',
  dollar: 'USD',
  dollars: 'USD',
  bucks: 'USD',
  euro: 'EUR',
  euros: 'EUR',
  'british pound': 'GBP',
  'british pounds': 'GBP',
  'pound sterling': 'GBP',
  'pounds sterling': 'GBP',
  pound: 'GBP',
  pounds: 'GBP',
  sterling: 'GBP',
  quid: 'GBP',
  yen: 'JPY',
  'japanese yen': 'JPY',
  yuan: 'CNY',
  renminbi: 'CNY',
  rmb: 'CNY',
  'swiss franc': 'CHF',
  'swiss francs': 'CHF',
  franc: 'CHF',
  francs: 'CHF',
  rupee: 'INR',
  rupees: 'INR',
  'indian rupees': 'INR',
  won: 'KRW',
  ruble: 'RUB',
  rubles: 'RUB',
  rouble: 'RUB',
  roubles: 'RUB',
  real: 'BRL',
  reais: 'BRL',
  'mexican pesos': 'MXN',
  'mexican peso': 'MXN',
  lira: 'TRY',
  zloty: 'PLN',
  'swedish krona': 'SEK',
  'swedish kronor': 'SEK',
  'norwegian krone': 'NOK',
  'danish krone': 'DKK',
  baht: 'THB',
  rand: 'ZAR',
  bitcoin: 'BTC',
};

const ISO_CODES = new Set(Intl.supportedValuesOf('currency'));
const COMMON_CODES = new Set(['usd', 'eur', 'gbp', 'jpy', 'cad', 'aud', 'chf', 'cny', 'inr', 'sek', 'nok', 'dkk', 'pln', 'mxn', 'brl']);
const SYMBOL_LIST = Object.keys(SYMBOLS).sort((a, b) => b.length - a.length);
const NAME_LIST = Object.keys(NAMES).sort((a, b) => b.length - a.length);

export interface CurrencyHit {
  code: string;
  text: string;
}

export function currencySymbolAt(text: string, position: number): CurrencyHit | undefined {
  const symbol = SYMBOL_LIST.find((s) => text.startsWith(s, position));
  return symbol ? { code: SYMBOLS[symbol], text: symbol } : undefined;
}

/** An ISO code ("EUR", "usd") or a name ("Swiss francs") at `position`, ending at a word boundary. */
export function currencyWordAt(text: string, position: number): CurrencyHit | undefined {
  const code = /^[A-Za-z]{3}(?![A-Za-z])/.exec(text.slice(position))?.[0];
  // A code in lower case counts only for the common ones: "all", "top" or "try" are words first.
  if (code && ISO_CODES.has(code.toUpperCase()) && (code === code.toUpperCase() || COMMON_CODES.has(code))) return { code: code.toUpperCase(), text: code };
  const lower = text.slice(position).toLowerCase();
  const name = NAME_LIST.find((n) => lower.startsWith(n) && !/[a-z]/.test(lower.charAt(n.length)));
  return name ? { code: NAMES[name], text: text.slice(position, position + name.length) } : undefined;
}
