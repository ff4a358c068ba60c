;; Dot products of int8 rows with one int16 query, four lanes at a time (WebAssembly SIMD).
;; Compiled into int8-dot.wasm.ts by: wat2wasm int8-dot.wat --output=- | base64 -w0   (wabt 1.0.32)
;;
;; dots(rows, count, stride, query, out): for each of `count` rows of `stride` int8 values starting
;; at byte `rows`, writes the row's int32 dot product with the `stride` int16 values at `query` to `out`.
;; `stride` is a multiple of 16 and above 0. Values are within [-127, 127], so nothing overflows.
(module
  (memory (export "memory") 1)
  (func (export "dots") (param $row i32) (param $count i32) (param $stride i32) (param $query i32) (param $out i32)
    (local $end i32) (local $q i32) (local $qEnd i32) (local $v v128) (local $low v128) (local $high v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (local.set $qEnd (i32.add (local.get $query) (i32.shl (local.get $stride) (i32.const 1))))
    (block $done
      (loop $eachRow
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $low (v128.const i32x4 0 0 0 0))
        (local.set $high (v128.const i32x4 0 0 0 0))
        (local.set $q (local.get $query))
        (loop $each16
          (local.set $v (v128.load (local.get $row)))
          (local.set $low (i32x4.add (local.get $low) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load (local.get $q)))))
          (local.set $high (i32x4.add (local.get $high) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (local.get $q)))))
          (local.set $row (i32.add (local.get $row) (i32.const 16)))
          (local.set $q (i32.add (local.get $q) (i32.const 32)))
          (br_if $each16 (i32.lt_u (local.get $q) (local.get $qEnd))))
        (local.set $low (i32x4.add (local.get $low) (local.get $high)))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $low)) (i32x4.extract_lane 1 (local.get $low)))
            (i32.add (i32x4.extract_lane 2 (local.get $low)) (i32x4.extract_lane 3 (local.get $low)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $eachRow)))))
