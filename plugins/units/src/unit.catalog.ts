import { all, create, type Unit } from 'mathjs';

/** One unit the plugin advertises: the mathjs spelling, a readable name and what users also type. */
export interface UnitEntry {
  symbol: string;
  name: string;
  aliases: string[];
}

export interface Quantity {
  base: string;
  units: UnitEntry[];
}

const u = (symbol: string, name: string, ...aliases: string[]): UnitEntry => ({ symbol, name, aliases });

export const QUANTITIES: Record<string, Quantity> = {
  length: {
    base: 'm',
    units: [
      u('mm', 'millimetre', 'millimeter', 'millimeters', 'millimetres'),
      u('cm', 'centimetre', 'centimeter', 'centimeters', 'centimetres'),
      u('m', 'metre', 'meter', 'meters', 'metres'),
      u('km', 'kilometre', 'kilometer', 'kilometers', 'kilometres', 'kms'),
      u('in', 'inch', 'inches', '"'),
      u('ft', 'foot', 'feet', "'"),
      u('yd', 'yard', 'yards'),
      u('mi', 'mile (statute)', 'mile', 'miles'),
      u('nmi', 'nautical mile', 'nautical mile', 'nautical miles'),
    ],
  },
  mass: {
    base: 'kg',
    units: [
      u('mg', 'milligram', 'milligrams'),
      u('g', 'gram', 'grams'),
      u('kg', 'kilogram', 'kilograms', 'kilo', 'kilos', 'kgs'),
      u('t', 'metric tonne', 'tonne', 'tonnes', 'metric ton', 'metric tons'),
      u('oz', 'ounce (avoirdupois)', 'ounce', 'ounces'),
      u('lbm', 'pound (avoirdupois)', 'lb', 'lbs', 'pound', 'pounds'),
      u('stone', 'stone (14 lb)', 'st', 'stones'),
      u('ton', 'short ton (2000 lb, US)', 'short ton', 'short tons', 'us ton'),
    ],
  },
  temperature: {
    base: 'K',
    units: [
      u('degC', 'degree Celsius', '°c', '℃', 'celsius', 'centigrade', 'deg c', 'degrees celsius'),
      u('degF', 'degree Fahrenheit', '°f', '℉', 'fahrenheit', 'deg f', 'degrees fahrenheit'),
      u('K', 'kelvin', 'kelvin', 'kelvins', '°k'),
      u('degR', 'degree Rankine', 'rankine', '°r'),
    ],
  },
  volume: {
    base: 'm^3',
    units: [
      u('mL', 'millilitre', 'ml', 'milliliter', 'milliliters', 'millilitres', 'cc'),
      u('L', 'litre', 'l', 'liter', 'liters', 'litres', 'ltr'),
      u('m^3', 'cubic metre', 'm3', 'cubic meter', 'cubic meters', 'cubic metres'),
      u('teaspoon', 'teaspoon (US)', 'tsp', 'teaspoons'),
      u('tablespoon', 'tablespoon (US)', 'tbsp', 'tablespoons'),
      u('floz', 'fluid ounce (US)', 'fl oz', 'fluid ounce', 'fluid ounces'),
      u('cup', 'cup (US)', 'cups'),
      u('pint', 'pint (US liquid)', 'pt', 'pints'),
      u('quart', 'quart (US liquid)', 'qt', 'quarts'),
      u('gallon', 'gallon (US liquid)', 'gal', 'gallons', 'us gallon'),
    ],
  },
  area: {
    base: 'm^2',
    units: [
      u('cm^2', 'square centimetre', 'cm2', 'square centimeter', 'square centimeters', 'sq cm'),
      u('m^2', 'square metre', 'm2', 'sqm', 'square meter', 'square meters', 'square metres', 'sq m'),
      u('km^2', 'square kilometre', 'km2', 'square kilometer', 'square kilometers', 'sq km'),
      u('hectare', 'hectare', 'ha', 'hectares'),
      u('acre', 'acre', 'acres'),
      u('sqin', 'square inch', 'in2', 'in^2', 'square inch', 'square inches', 'sq in'),
      u('sqft', 'square foot', 'ft2', 'ft^2', 'square foot', 'square feet', 'sq ft'),
      u('sqyd', 'square yard', 'yd2', 'square yard', 'square yards', 'sq yd'),
      u('sqmi', 'square mile', 'mi2', 'square mile', 'square miles', 'sq mi'),
    ],
  },
  speed: {
    base: 'm/s',
    units: [
      u('m/s', 'metres per second', 'mps', 'meters per second', 'metres per second'),
      u('km/h', 'kilometres per hour', 'kph', 'kmh', 'km/hr', 'kmph', 'kilometers per hour', 'kilometres per hour'),
      u('mi/h', 'miles per hour', 'mph', 'mi/hr', 'miles per hour'),
      u('ft/s', 'feet per second', 'fps', 'feet per second'),
      u('knot', 'knot (nautical mile per hour)', 'knots', 'kn', 'kts'),
    ],
  },
  time: {
    base: 's',
    units: [
      u('ns', 'nanosecond', 'nanosecond', 'nanoseconds'),
      u('us', 'microsecond', 'µs', 'μs', 'microsecond', 'microseconds'),
      u('ms', 'millisecond', 'millisecond', 'milliseconds', 'msec'),
      u('s', 'second', 'sec', 'secs', 'second', 'seconds'),
      u('min', 'minute', 'mins', 'minute', 'minutes'),
      u('h', 'hour', 'hr', 'hrs', 'hour', 'hours'),
      u('day', 'day', 'days', 'd'),
      u('week', 'week', 'weeks', 'wk', 'wks'),
      u('month', 'month (average, 1/12 year)', 'months', 'mo'),
      u('year', 'year (365.25 days)', 'years', 'yr', 'yrs', 'y'),
    ],
  },
  data: {
    base: 'B',
    units: [
      u('b', 'bit', 'bit', 'bits'),
      u('B', 'byte', 'byte', 'bytes'),
      u('kB', 'kilobyte (1000 B)', 'KB', 'kilobyte', 'kilobytes'),
      u('MB', 'megabyte (1000² B)', 'megabyte', 'megabytes'),
      u('GB', 'gigabyte (1000³ B)', 'gigabyte', 'gigabytes'),
      u('TB', 'terabyte (1000⁴ B)', 'terabyte', 'terabytes'),
      u('KiB', 'kibibyte (1024 B)', 'kib', 'kibibyte', 'kibibytes'),
      u('MiB', 'mebibyte (1024² B)', 'mib', 'mebibyte', 'mebibytes'),
      u('GiB', 'gibibyte (1024³ B)', 'gib', 'gibibyte', 'gibibytes'),
      u('TiB', 'tebibyte (1024⁴ B)', 'tib', 'tebibyte', 'tebibytes'),
      u('kb', 'kilobit (1000 bit)', 'kbit', 'kilobit', 'kilobits'),
      u('Mb', 'megabit (1000² bit)', 'Mbit', 'megabit', 'megabits'),
      u('Gb', 'gigabit (1000³ bit)', 'Gbit', 'gigabit', 'gigabits'),
    ],
  },
  energy: {
    base: 'J',
    units: [
      u('J', 'joule', 'joule', 'joules'),
      u('kJ', 'kilojoule', 'kilojoule', 'kilojoules'),
      u('cal', 'calorie (thermochemical, 4.184 J)', 'calorie', 'calories'),
      u('kcal', 'kilocalorie (food Calorie)', 'kilocalorie', 'kilocalories', 'food calories'),
      u('Wh', 'watt-hour', 'watt hour', 'watt hours'),
      u('kWh', 'kilowatt-hour', 'kwh', 'kilowatt hour', 'kilowatt hours'),
      u('BTU', 'British thermal unit', 'btu', 'btus'),
      u('eV', 'electronvolt', 'electronvolt', 'electronvolts'),
    ],
  },
  pressure: {
    base: 'Pa',
    units: [
      u('Pa', 'pascal', 'pascal', 'pascals'),
      u('hPa', 'hectopascal', 'hectopascal', 'hectopascals', 'mbar', 'millibar'),
      u('kPa', 'kilopascal', 'kilopascal', 'kilopascals'),
      u('bar', 'bar', 'bars'),
      u('psi', 'pound per square inch', 'lbf/in2', 'pounds per square inch'),
      u('atm', 'standard atmosphere', 'atmosphere', 'atmospheres'),
      u('mmHg', 'millimetre of mercury', 'mmhg', 'millimeters of mercury'),
      u('torr', 'torr', 'Torr'),
    ],
  },
  power: {
    base: 'W',
    units: [u('W', 'watt', 'watt', 'watts'), u('kW', 'kilowatt', 'kw', 'kilowatt', 'kilowatts'), u('MW', 'megawatt', 'megawatt', 'megawatts'), u('hp', 'horsepower (mechanical)', 'horsepower', 'bhp')],
  },
};

export const QUANTITY_NAMES = Object.keys(QUANTITIES);

/** A private mathjs instance: the catalog needs a few units mathjs lacks, and nothing else touches it. */
const math = create(all);
math.createUnit({
  cal: { definition: '4.184 J', prefixes: 'short', aliases: ['calorie', 'calories'] },
  knot: { definition: '0.5144444444444445 m/s' },
  nmi: { definition: '1852 m' },
});
// mathjs rounds the acre to 4046.86 m²; the international acre is exact.
math.createUnit('acre', { definition: '4046.8564224 m^2', aliases: ['acres'] }, { override: true });

/** Aliases as spelled (case kept: "KB" and "kb" differ) and case-folded, both with spaces collapsed. */
const EXACT_ALIASES = new Map<string, string>();
const FOLDED_ALIASES = new Map<string, string>();
for (const quantity of Object.values(QUANTITIES)) {
  for (const entry of quantity.units) {
    for (const alias of entry.aliases) {
      EXACT_ALIASES.set(collapse(alias), entry.symbol);
      FOLDED_ALIASES.set(collapse(alias).toLowerCase(), entry.symbol);
    }
  }
}

function collapse(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

function tryUnit(expr: string): Unit | undefined {
  try {
    const parsed = math.unit(expr);
    // `math.unit("5 m")` parses a value too; a unit argument must be a bare unit.
    return parsed.value === null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves what a user typed ("mph", "°C", "Kilometers", "km / h") to a mathjs unit, or undefined. */
export function resolveUnit(text: string, otherQuantity?: string): { symbol: string; unit: Unit } | undefined {
  const trimmed = text.trim();
  // A bare "C" or "F" is coulomb or farad to mathjs, but next to a temperature it means degrees.
  if (otherQuantity === 'temperature' && /^[cf]$/i.test(trimmed)) {
    const symbol = `deg${trimmed.toUpperCase()}`;
    return { symbol, unit: math.unit(symbol) };
  }
  const spaced = /\s/.test(trimmed);
  const exactAlias = EXACT_ALIASES.get(collapse(trimmed));
  if (exactAlias) return { symbol: exactAlias, unit: math.unit(exactAlias) };
  // mathjs reads "us ton" as microsecond times ton, so multi-word input goes to the aliases first.
  const exact = spaced ? undefined : tryUnit(trimmed);
  if (exact) return { symbol: exact.formatUnits(), unit: exact };
  const folded = FOLDED_ALIASES.get(collapse(trimmed).toLowerCase());
  if (folded) return { symbol: folded, unit: math.unit(folded) };
  const fallback = tryUnit(trimmed) ?? tryUnit(trimmed.toLowerCase());
  return fallback ? { symbol: fallback.formatUnits(), unit: fallback } : undefined;
}

export function quantityOf(unit: Unit): string | undefined {
  return QUANTITY_NAMES.find((name) => unit.equalBase(math.unit(QUANTITIES[name].base)));
}

export function convertValue(value: number, from: string, to: string): number {
  return math.unit(value, from).toNumber(to);
}

export const roundTo = (x: number, significantDigits: number): number => Number(x.toPrecision(significantDigits));
