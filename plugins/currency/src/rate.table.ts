import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import table from './rates.json';

export interface Currency {
  code: string;
  name: string;
  perEur: number;
  /** ISO 4217 minor units: digits after the decimal point the currency is quoted with. */
  minorUnits: number;
}

export const BASE = table.base;
export const AS_OF = table.asOf;
export const SOURCE = table.source;

export const CURRENCIES: readonly Currency[] = Object.entries(table.currencies).map(([code, { name, perEur, minorUnits }]) => ({ code, name, perEur, minorUnits }));
const BY_CODE = new Map(CURRENCIES.map((currency) => [currency.code, currency]));

/** Symbols and everyday names users type instead of ISO codes; ambiguous ones map to the most common reading. */
const ALIASES: Record<string, string> = {
  '€': 'EUR',
  euro: 'EUR',
  euros: 'EUR',
  $: 'USD',
  us$: 'USD',
  dollar: 'USD',
  dollars: 'USD',
  'us dollar': 'USD',
  'us dollars': 'USD',
  '£': 'GBP',
  pound: 'GBP',
  pounds: 'GBP',
  sterling: 'GBP',
  '¥': 'JPY',
  yen: 'JPY',
  yuan: 'CNY',
  renminbi: 'CNY',
  rmb: 'CNY',
  '₹': 'INR',
  rupee: 'INR',
  rupees: 'INR',
  '₩': 'KRW',
  won: 'KRW',
  'swiss franc': 'CHF',
  'swiss francs': 'CHF',
  franc: 'CHF',
  francs: 'CHF',
  c$: 'CAD',
  'canadian dollar': 'CAD',
  'canadian dollars': 'CAD',
  a$: 'AUD',
  'australian dollar': 'AUD',
  'australian dollars': 'AUD',
  zloty: 'PLN',
  zł: 'PLN',
  real: 'BRL',
  reais: 'BRL',
  lira: 'TRY',
  '₺': 'TRY',
  shekel: 'ILS',
  '₪': 'ILS',
  rand: 'ZAR',
  baht: 'THB',
  '฿': 'THB',
  forint: 'HUF',
};

for (const currency of CURRENCIES) ALIASES[currency.name.toLowerCase()] = currency.code;

/** Resolves an ISO 4217 code, symbol or name ("usd", "$", "yen", "Swiss franc") or throws INVALID_ARGUMENTS on `path`. */
export function requireCurrency(text: string, path: string): Currency {
  const trimmed = text.trim();
  const currency = BY_CODE.get(trimmed.toUpperCase()) ?? BY_CODE.get(ALIASES[trimmed.toLowerCase().replace(/\s+/g, ' ')] ?? '');
  if (!currency) {
    const message = `unknown or unsupported currency "${text}" (supported: ${CURRENCIES.map((c) => c.code).join(', ')})`;
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path, message }]);
  }
  return currency;
}
