/** `int8-dot.wat`, compiled (the command is at the top of that file). */
const INT8_DOT_WASM =
  'AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcRAgZtZW1vcnkCAARkb3RzAAAKzgEBywECA38DeyAEIAFBAnRqIQUgAyACQQF0aiEHAkADQCAEIAVPDQH9DAAAAAAAAAAAAAAAAAAAAAAhCf0MAAAAAAAAAAAAAAAAAAAAACEKIAMhBgNAIAD9AAQAIQggCSAI/YcBIAb9AAQA/boB/a4BIQkgCiAI/YgBIAb9AAQQ/boB/a4BIQogAEEQaiEAIAZBIGohBiAGIAdJDQALIAkgCv2uASEJIAQgCf0bACAJ/RsBaiAJ/RsCIAn9GwNqajYCACAEQQRqIQQMAAsLCw==';

/** The few WebAssembly globals used here: the project's TypeScript libs (no DOM) do not declare them. */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
}

export interface Int8DotExports {
  memory: WebAssembly.Memory;
  /** `dots(rows, count, stride, query, out)`: see int8-dot.wat. */
  dots(rows: number, count: number, stride: number, query: number, out: number): void;
}

let compiled: WebAssembly.Module | undefined;

/** A fresh instance (its own memory) of the int8 dot-product kernel; the module is compiled once per process. */
export function instantiateInt8Dot(): Int8DotExports {
  compiled ??= new WebAssembly.Module(Buffer.from(INT8_DOT_WASM, 'base64'));
  return new WebAssembly.Instance(compiled).exports as unknown as Int8DotExports;
}
