//! Go's math.Log as the Go SDK's modules compute it (Go's portable
//! implementation, FreeBSD's e_log.c): the spread score rounds sums of
//! logarithms to integers, so a last-place difference could move a score
//! across .5 and break or make a tie. musl's log, which `f64::ln` calls in
//! a Wasm build, agreed with Go's on every integer of 2..200,000; glibc's,
//! which the crate's tests call natively, differed on 1,997 of them, 3
//! among them. Translated operation by operation; Rust fuses no
//! multiply-add, nor does Go's Wasm compiler.

const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01; // 3fe62e42 fee00000
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10; // 3dea39ef 35793c76
const L1: f64 = 6.666_666_666_666_735_130e-01; // 3FE55555 55555593
const L2: f64 = 3.999_999_999_940_941_908e-01; // 3FD99999 9997FA04
const L3: f64 = 2.857_142_874_366_239_149e-01; // 3FD24924 94229359
const L4: f64 = 2.222_219_843_214_978_396e-01; // 3FCC71C5 1D8E78AF
const L5: f64 = 1.818_357_216_161_805_012e-01; // 3FC74664 96CB03DE
const L6: f64 = 1.531_383_769_920_937_332e-01; // 3FC39A09 D078C69F
const L7: f64 = 1.479_819_860_511_658_591e-01; // 3FC2F112 DF3E5244

/// The natural logarithm, as Go's math.Log computes it.
pub(crate) fn log(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    let (mut f1, mut ki) = frexp(x);
    if f1 < std::f64::consts::SQRT_2 / 2.0 {
        f1 *= 2.0;
        ki -= 1;
    }
    let f = f1 - 1.0;
    let k = f64::from(ki);

    let s = f / (2.0 + f);
    let s2 = s * s;
    let s4 = s2 * s2;
    let t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
    let t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
    let r = t1 + t2;
    let hfsq = 0.5 * f * f;
    k * LN2_HI - ((hfsq - (s * (hfsq + r) + k * LN2_LO)) - f)
}

/// Go's math.Frexp for finite, non-zero x: x = frac × 2^exp with frac in
/// [½, 1).
fn frexp(x: f64) -> (f64, i32) {
    const SMALLEST_NORMAL: f64 = 2.225_073_858_507_201_4e-308; // 2^-1022
    let (x, mut exp) = if x.abs() < SMALLEST_NORMAL { (x * (1u64 << 52) as f64, -52) } else { (x, 0) };
    let mut bits = x.to_bits();
    exp += ((bits >> 52) & 0x7ff) as i32 - 1023 + 1;
    bits &= !(0x7ff << 52);
    bits |= 1022u64 << 52; // the exponent of [½, 1)
    (f64::from_bits(bits), exp)
}
