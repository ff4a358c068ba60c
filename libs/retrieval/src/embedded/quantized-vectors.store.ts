import { type Int8DotExports, instantiateInt8Dot } from './int8-dot.wasm';
import { KthLargest } from './top-k.heap';

const PAGE = 65_536;
/** Float rounding in the bound's own arithmetic (doubles over float32 inputs): far above it, far below any score gap. */
const SLACK = 1e-7;
const ROW_LEVELS = 127;
/**
 * The query is quantised to int16, so its share of the error bound all but vanishes; the kernel's
 * int32 sums stay exact while dims · 127 · QUERY_LEVELS < 2^31 (up to 4,096 dimensions here).
 */
const QUERY_LEVELS = 4095;
export const MAX_DIMENSIONS = 4096;

/**
 * Int8 copies of every vector, scanned with a WebAssembly SIMD kernel (a quarter of the float
 * bytes: the scan is bound by memory bandwidth), used only to find which tools can be in the
 * top k. Each row keeps the norms that bound its quantisation error, so the candidates provably
 * hold the exact top k; the caller re-scores them with the float vectors. Rows of one tool are
 * contiguous and owned by its slot; a dead slot's rows are skipped until the owner rebuilds.
 */
export class QuantizedVectors {
  private kernel: Int8DotExports | null = null;
  private dims = 0;
  /** Bytes per row: dims rounded up to the kernel's 16 lanes. */
  private stride = 0;
  private capacity = 0;
  private count = 0;
  private owner = new Int32Array(0);
  private scale = new Float64Array(0);
  /** ‖s·q̂‖ and ‖v − s·q̂‖ of each row: the two halves of its error bound. */
  private quantizedNorm = new Float64Array(0);
  private errorNorm = new Float64Array(0);

  get dimensions(): number {
    return this.dims;
  }

  get rows(): number {
    return this.count;
  }

  /** Appends the slot's vectors as rows; all vectors must have the dimension of the first ever added. */
  add(slot: number, vectors: Float32Array[]): void {
    for (const vector of vectors) {
      if (this.dims === 0) this.init(vector.length);
      if (vector.length !== this.dims) throw new RangeError(`a vector of ${vector.length} dimensions among vectors of ${this.dims}`);
      if (this.count === this.capacity) this.grow();
      const row = this.count++;
      const bytes = new Int8Array((this.kernel as Int8DotExports).memory.buffer, row * this.stride, this.stride);
      const { scale, quantizedNorm, errorNorm } = quantize(vector, bytes);
      this.owner[row] = slot;
      this.scale[row] = scale;
      this.quantizedNorm[row] = quantizedNorm;
      this.errorNorm[row] = errorNorm;
    }
  }

  /**
   * Slots that may be among the k best by their best row's dot product with `query` (those whose
   * upper bound reaches the k-th best lower bound), over slots with `allowed[slot]` set. Each bound
   * is |v·q − s_v s_q (v̂·q̂)| ≤ ‖s_v v̂‖·‖q − s_q q̂‖ + ‖v − s_v v̂‖·‖q‖.
   */
  candidates(query: Float32Array, k: number, allowed: Uint8Array): Int32Array {
    if (this.count === 0 || k <= 0) return new Int32Array(0);
    const kernel = this.kernel as Int8DotExports;
    const queryOffset = this.capacity * this.stride;
    const outOffset = queryOffset + 2 * this.stride;
    const q16 = new Int16Array(kernel.memory.buffer, queryOffset, this.stride);
    const { scale: queryScale, errorNorm: queryError } = quantize(query, q16, QUERY_LEVELS);
    let queryNorm = 0;
    for (let i = 0; i < query.length; i++) queryNorm += query[i] * query[i];
    queryNorm = Math.sqrt(queryNorm);
    kernel.dots(0, this.count, this.stride, queryOffset, outOffset);
    const dots = new Int32Array(kernel.memory.buffer, outOffset, this.count);

    const kth = new KthLargest(k);
    const slots = new Int32Array(this.count);
    const upper = new Float64Array(this.count);
    let found = 0;
    let current = -1;
    let low = Number.NEGATIVE_INFINITY;
    let high = Number.NEGATIVE_INFINITY;
    for (let row = 0; row < this.count; row++) {
      const slot = this.owner[row];
      if (allowed[slot] !== 1) continue;
      if (slot !== current) {
        if (current >= 0) {
          kth.offer(low);
          slots[found] = current;
          upper[found++] = high;
        }
        current = slot;
        low = Number.NEGATIVE_INFINITY;
        high = Number.NEGATIVE_INFINITY;
      }
      const approx = dots[row] * this.scale[row] * queryScale;
      const bound = this.quantizedNorm[row] * queryError + this.errorNorm[row] * queryNorm + SLACK;
      if (approx - bound > low) low = approx - bound;
      if (approx + bound > high) high = approx + bound;
    }
    if (current >= 0) {
      kth.offer(low);
      slots[found] = current;
      upper[found++] = high;
    }
    const threshold = kth.value;
    let kept = 0;
    for (let i = 0; i < found; i++) if (upper[i] >= threshold) slots[kept++] = slots[i];
    return slots.subarray(0, kept);
  }

  private init(dims: number): void {
    if (dims > MAX_DIMENSIONS) throw new RangeError(`vectors of ${dims} dimensions; the int8 scan takes up to ${MAX_DIMENSIONS}`);
    this.dims = dims;
    this.stride = Math.ceil(dims / 16) * 16;
    this.kernel = instantiateInt8Dot();
  }

  /** Doubles the row capacity; the matrix stays at offset 0, the query and output scratch follow it. */
  private grow(): void {
    const capacity = Math.max(1024, this.capacity * 2);
    const memory = (this.kernel as Int8DotExports).memory;
    const needed = capacity * this.stride + 2 * this.stride + capacity * 4;
    if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
    this.owner = resized(this.owner, capacity);
    this.scale = resized(this.scale, capacity);
    this.quantizedNorm = resized(this.quantizedNorm, capacity);
    this.errorNorm = resized(this.errorNorm, capacity);
    this.capacity = capacity;
  }
}

/** Symmetric int8 quantisation of `vector` into `out` (zero-padded), with its scale and the norms of the bound. */
function quantize(vector: Float32Array, out: Int8Array | Int16Array, levels = ROW_LEVELS): { scale: number; quantizedNorm: number; errorNorm: number } {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]));
  const scale = max > 0 ? max / levels : 1;
  let quantizedNorm = 0;
  let errorNorm = 0;
  out.fill(0);
  for (let i = 0; i < vector.length; i++) {
    const q = Math.max(-levels, Math.min(levels, Math.round(vector[i] / scale)));
    out[i] = q;
    quantizedNorm += (q * scale) ** 2;
    errorNorm += (vector[i] - q * scale) ** 2;
  }
  return { scale, quantizedNorm: Math.sqrt(quantizedNorm), errorNorm: Math.sqrt(errorNorm) };
}

function resized<T extends Int32Array | Float64Array>(array: T, length: number): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}
