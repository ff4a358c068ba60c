// Jest runs each test file in its own realm, so its typed-array constructors differ from the ones
// native addons (onnxruntime-node) create; `instanceof` checks inside those libraries then fail.
// Share the host's constructors with the test realm.
const { TestEnvironment } = require('jest-environment-node');

const SHARED = [
  'ArrayBuffer',
  'SharedArrayBuffer',
  'DataView',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
];

class SharedTypedArraysEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) this.global[name] = globalThis[name];
  }
}

module.exports = SharedTypedArraysEnvironment;
