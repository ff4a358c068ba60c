/**
 * How people write units, by quantity. Only recognition: a unit argument keeps the spelling the task
 * used, and the tool resolves it.
 */
const UNITS: Record<string, string> = {
  length:
    'mm millimeter millimeters millimetre millimetres cm centimeter centimeters centimetre centimetres m meter meters metre metres km kms kilometer kilometers kilometre kilometres in inch inches ft foot feet yd yard yards mi mile miles nmi nautical_mile nautical_miles',
  mass: 'mg milligram milligrams g gram grams kg kgs kilo kilos kilogram kilograms t tonne tonnes metric_ton metric_tons oz ounce ounces lb lbs pound pounds st stone stones ton tons short_ton short_tons',
  temperature:
    '°C °F °K ℃ ℉ °_C °_F C F K celsius Celsius fahrenheit Fahrenheit kelvin kelvins centigrade rankine degC degF deg_C deg_F degrees_celsius degrees_fahrenheit degrees_Celsius degrees_Fahrenheit degree_celsius degree_fahrenheit degree_Celsius degree_Fahrenheit degrees_C degrees_F degree_C degree_F',
  volume:
    'ml mL milliliter milliliters millilitre millilitres cc l L liter liters litre litres ltr m3 m^3 m³ cm³ cubic_meter cubic_meters cubic_metre cubic_metres tsp teaspoon teaspoons tbsp tablespoon tablespoons floz fl_oz fluid_ounce fluid_ounces cup cups pt pint pints qt quart quarts gal gallon gallons',
  area: 'cm² m² km² ft² in² yd² mi² cm2 m2 km2 sqm sqft sqin sqyd sqmi ha hectare hectares acre acres cm^2 m^2 km^2 ft2 ft^2 in2 yd2 mi2 sq_cm sq_m sq_km sq_ft sq_in sq_yd sq_mi square_meter square_meters square_metre square_metres square_kilometer square_kilometers square_kilometres square_foot square_feet square_inch square_inches square_yard square_yards square_mile square_miles',
  speed: 'm/s mps kph kmh km/h km/hr kmph mph mi/h mi/hr ft/s fps knot knots kn kts meters_per_second metres_per_second kilometers_per_hour kilometres_per_hour miles_per_hour feet_per_second',
  time: 'ns nanosecond nanoseconds us µs μs microsecond microseconds ms msec millisecond milliseconds s sec secs second seconds min mins minute minutes h hr hrs hour hours d day days wk wks week weeks mo month months y yr yrs year years',
  data: 'b bit bits B byte bytes kB KB kilobyte kilobytes MB megabyte megabytes GB gigabyte gigabytes TB terabyte terabytes KiB kib kibibyte kibibytes MiB mib mebibyte mebibytes GiB gib gibibyte gibibytes TiB tebibyte tebibytes kb kbit kilobit kilobits Mb Mbit megabit megabits Gb Gbit gigabit gigabits',
  energy:
    'J joule joules kJ kilojoule kilojoules cal calorie calories kcal kilocalorie kilocalories Wh kWh kwh BTU btu btus eV electronvolt electronvolts watt_hour watt_hours kilowatt_hour kilowatt_hours',
  pressure: 'Pa pascal pascals hPa hectopascal hectopascals mbar millibar kPa kilopascal kilopascals bar bars psi atm atmosphere atmospheres mmHg mmhg torr Torr',
  power: 'W watt watts kW kw kilowatt kilowatts MW megawatt megawatts hp horsepower bhp',
  amount: 'mol mols mole moles mmol millimole millimoles',
};

export interface UnitEntry {
  text: string;
  quantity: string;
}

/** Spellings that are also everyday words or letters: accepted only right after a number or a "to"/"into". */
export const SHORT_UNIT_WORDS = new Set([
  'in',
  't',
  's',
  'h',
  'd',
  'y',
  'm',
  'g',
  'b',
  'B',
  'st',
  'pt',
  'mo',
  'kn',
  'ha',
  'min',
  'C',
  'F',
  'K',
  'l',
  'L',
  'us',
  'W',
  'J',
  'bar',
  'cup',
  'ton',
  'tons',
  'cc',
  'Pa',
  'hp',
  'ms',
  'mm',
]);

/** Every spelling, longest first so "square feet" wins over "feet". */
const UNIT_SPELLINGS: readonly UnitEntry[] = Object.entries(UNITS)
  .flatMap(([quantity, list]) => list.split(' ').map((word) => ({ text: word.replaceAll('_', ' '), quantity })))
  .sort((a, b) => b.text.length - a.text.length);

const SPELLINGS = new Set(UNIT_SPELLINGS.map((entry) => entry.text));
const LONGEST_SPELLING = Math.max(...UNIT_SPELLINGS.map((entry) => entry.text.length));
/** The spellings by their first letter, lowercased (longest first still): a position is checked against its own letter's only. */
const BY_FIRST = new Map<string, UnitEntry[]>();
for (const entry of UNIT_SPELLINGS) {
  const first = entry.text.charAt(0).toLowerCase();
  BY_FIRST.set(first, [...(BY_FIRST.get(first) ?? []), entry]);
}

/** "KM", "MPH", "LBS": a lowercase spelling written in capitals, where capitals carry no meaning of their own (not data sizes: "Mb" is not "MB"). */
function shouted(rest: string, entry: UnitEntry): boolean {
  if (entry.quantity === 'data' || entry.text.length < 2 || entry.text !== entry.text.toLowerCase()) return false;
  const written = rest.slice(0, entry.text.length);
  return written === entry.text.toUpperCase() && !SPELLINGS.has(written);
}

/** The unit written at `position` (case kept when it matters: "Mb" is not "MB"), or undefined. */
export function unitAt(text: string, position: number): UnitEntry | undefined {
  // Called at every word of a task: only as much of the text as the longest spelling and what must follow it.
  const rest = text.slice(position, position + LONGEST_SPELLING + 2);
  const lower = rest.toLowerCase();
  for (const entry of BY_FIRST.get(lower.charAt(0)) ?? []) {
    if (!rest.startsWith(entry.text) && !(entry.text.length > 3 && lower.startsWith(entry.text.toLowerCase())) && !shouted(rest, entry)) continue;
    const next = rest.charAt(entry.text.length);
    if (/[A-Za-z0-9_]/.test(next) || (next === '/' && /^[A-Za-z]/.test(rest.charAt(entry.text.length + 1)))) continue;
    return { text: rest.slice(0, entry.text.length), quantity: entry.quantity };
  }
  return undefined;
}

const POWER = '(?:\\^[0-9]|[²³23])?';
const RATIO = new RegExp(`^([A-Za-z°µμ]+${POWER})((?:/[A-Za-z]+${POWER})+)`);

/**
 * A compound unit written with slashes at `position` ("meters/second^2", "J/K", "g/mol"): every part
 * a known spelling. Quantity `ratio`; a tool's description that writes the same compound names it.
 */
export function unitRatioAt(text: string, position: number): UnitEntry | undefined {
  const m = RATIO.exec(text.slice(position, position + 4 * (LONGEST_SPELLING + 3)));
  if (!m || /[A-Za-z0-9_]/.test(text.charAt(position + m[0].length))) return undefined;
  const parts = m[0].split('/').map((part) => part.replace(/\^[0-9]$|[²³]$/, ''));
  if (!parts.every((part) => unitAt(part, 0)?.text === part)) return undefined;
  return { text: m[0], quantity: 'ratio' };
}

/** "5J/K", "9.8m/s^2": a number glued to a compound unit, which is a measure, never a file path. */
export function isMeasure(token: string): boolean {
  const unit = token.replace(/^[\d.,]+/, '');
  return unit !== token && unit.length > 0 && (unitRatioAt(unit, 0)?.text === unit || unitAt(unit, 0)?.text === unit);
}
