import { ErrorCode, type ErrorDetail, ToolgateError } from '../errors/toolgate.errors';

/**
 * One implementation of a port, chosen by name from validated config. A driver owns what it reads
 * from the environment (`env`, in the lib's schema library), what it needs there (`problems`), its
 * part of the lib's options (`options`) and how it is built (`create`), so that adding one is its own
 * file plus one line in the lib's list of drivers.
 */
export interface Driver<Name extends string, Env, Options, Port, Deps = undefined, Shape = unknown> {
  readonly name: Name;
  /** Environment variables it reads, merged into the lib's config schema. */
  readonly env?: Shape;
  /** True when the environment alone asks for this driver (e.g. ELASTICSEARCH_URL), without the selecting variable. */
  impliedBy?(env: Env): boolean;
  /** What the environment lacks for this driver to run, once it is chosen (config issues named by variable). */
  problems?(env: Env): ErrorDetail[];
  /** Its settings, as part of the lib's options (read whether or not it is chosen, so a caller can switch drivers). */
  options?(env: Env): object;
  create(options: Options, deps: Deps): Port;
}

type NamedDriver = { readonly name: string };

/** The registered names, for the selecting variable's enum. */
export function driverNames<D extends NamedDriver>(drivers: readonly D[]): [D['name'], ...D['name'][]] {
  return drivers.map((driver) => driver.name) as [D['name'], ...D['name'][]];
}

/** The driver of that name; INVALID_CONFIG naming the known ones otherwise. */
export function driverNamed<D extends NamedDriver>(port: string, drivers: readonly D[], name: string): D {
  const driver = drivers.find((candidate) => candidate.name === name);
  if (!driver) throw new ToolgateError(ErrorCode.INVALID_CONFIG, `unknown ${port} driver "${name}"`, [{ path: port, message: `must be one of ${driverNames(drivers).join(', ')}` }]);
  return driver;
}

/** The one named by the selecting variable, else the first the environment implies, else the default. */
export function chooseDriver<Env, D extends NamedDriver & { impliedBy?(env: Env): boolean }>(drivers: readonly D[], env: Env, selected: string | undefined, fallback: D['name']): D['name'] {
  return selected ?? drivers.find((driver) => driver.impliedBy?.(env))?.name ?? fallback;
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Every driver's own options as one object type (each driver contributes its fields). */
export type DriverOptionsOf<D> = UnionToIntersection<D extends { options?(env: never): infer O } ? (O extends object ? O : never) : never>;

/** Every driver's environment variables as one shape. */
export type DriverEnvOf<D> = UnionToIntersection<D extends { env?: infer S } ? (S extends object ? S : never) : never>;

// Each driver reads only its own variables out of the lib's validated environment, hence `env: never` below.
type ConfiguredDriver = NamedDriver & { env?: object; problems?(env: never): ErrorDetail[]; options?(env: never): object };

/** The variables of all the drivers, for the lib's config schema (drivers sharing a variable declare it alike). */
export function driverEnv<D extends ConfiguredDriver>(drivers: readonly D[]): DriverEnvOf<D> {
  return Object.assign({}, ...drivers.map((driver) => driver.env ?? {}));
}

/** Every driver's options read from the validated environment, merged. */
export function driverOptions<D extends ConfiguredDriver>(drivers: readonly D[], env: object): DriverOptionsOf<D> {
  return Object.assign({}, ...drivers.map((driver) => (driver.options as ((env: object) => object) | undefined)?.(env) ?? {}));
}

/** What the named driver lacks in the validated environment. */
export function driverProblems<D extends ConfiguredDriver>(drivers: readonly D[], name: string, env: object): ErrorDetail[] {
  const driver = drivers.find((candidate) => candidate.name === name);
  return (driver?.problems as ((env: object) => ErrorDetail[]) | undefined)?.(env) ?? [];
}
