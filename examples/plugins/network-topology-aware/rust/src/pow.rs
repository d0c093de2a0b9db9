//! Go's math.Pow for an integral exponent, bit for bit. The native plugin
//! weights tier t by fading^(t-1) with Go's Pow, which multiplies
//! successive squarings of the mantissa and scales by the exponent at the
//! end; Rust's `powf` and `powi` round otherwise in places, and a weight
//! off by one unit in the last place can break a tie between nodes the
//! other way.

/// x to the power y, as Go's math.Pow(x, float64(y)) computes it.
pub(crate) fn pow(x: f64, y: i64) -> f64 {
    if y == 0 || x == 1.0 {
        return 1.0;
    }
    if y == 1 {
        return x;
    }
    if x.is_nan() {
        return f64::NAN;
    }
    let odd = y % 2 != 0;
    if x == 0.0 {
        return match (y < 0, x.is_sign_negative() && odd) {
            (true, true) => f64::NEG_INFINITY,
            (true, false) => f64::INFINITY,
            (false, true) => x,
            (false, false) => 0.0,
        };
    }
    if x.is_infinite() {
        if x < 0.0 {
            return pow(1.0 / x, -y);
        }
        return if y < 0 { 0.0 } else { f64::INFINITY };
    }
    // ans = a1 * 2^ae, multiplying in the squarings of x = x1 * 2^xe
    // according to the bits of |y|.
    let (mut a1, mut ae) = (1.0f64, 0i64);
    let (mut x1, mut xe) = frexp(x);
    let mut i = y.unsigned_abs();
    while i != 0 {
        if !(-(1 << 12)..=(1 << 12)).contains(&xe) {
            // Past any float's exponent: the scaling under- or overflows.
            ae += xe;
            break;
        }
        if i & 1 == 1 {
            a1 *= x1;
            ae += xe;
        }
        x1 *= x1;
        xe <<= 1;
        if x1 < 0.5 {
            x1 += x1;
            xe -= 1;
        }
        i >>= 1;
    }
    if y < 0 {
        a1 = 1.0 / a1;
        ae = -ae;
    }
    ldexp(a1, ae)
}

const SHIFT: u32 = 52;
const MASK: u64 = 0x7ff;
const BIAS: i64 = 1023;

/// A subnormal scaled to a normal, and the power of two taken out.
fn normalize(x: f64) -> (f64, i64) {
    if x.abs() < f64::MIN_POSITIVE {
        return (x * (1u64 << 52) as f64, -52);
    }
    (x, 0)
}

/// f as frac * 2^exp with |frac| in [0.5, 1).
fn frexp(f: f64) -> (f64, i64) {
    if f == 0.0 || !f.is_finite() {
        return (f, 0);
    }
    let (f, e) = normalize(f);
    let mut x = f.to_bits();
    let exp = e + ((x >> SHIFT) & MASK) as i64 - BIAS + 1;
    x &= !(MASK << SHIFT);
    x |= ((BIAS - 1) as u64) << SHIFT;
    (f64::from_bits(x), exp)
}

/// frac * 2^exp, rounding a subnormal result as Go does.
fn ldexp(frac: f64, exp: i64) -> f64 {
    if frac == 0.0 || !frac.is_finite() {
        return frac;
    }
    let (frac, e) = normalize(frac);
    let mut x = frac.to_bits();
    let mut exp = exp + e + ((x >> SHIFT) & MASK) as i64 - BIAS;
    if exp < -1075 {
        return 0.0f64.copysign(frac);
    }
    if exp > 1023 {
        return if frac < 0.0 { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    let mut m = 1.0;
    if exp < -1022 {
        exp += 53;
        m = 1.0 / (1u64 << 53) as f64;
    }
    x &= !(MASK << SHIFT);
    x |= ((exp + BIAS) as u64) << SHIFT;
    m * f64::from_bits(x)
}

#[cfg(test)]
mod tests {
    use super::pow;

    /// Go's math.Pow(x, y) for each case, as go1.25 computes it.
    #[test]
    fn integral_powers_are_gos() {
        let cases: &[(f64, i64, u64)] = &[
            (0.8, 0, 0x3ff0000000000000),
            (0.8, 1, 0x3fe999999999999a),
            (0.8, 2, 0x3fe47ae147ae147c),
            (0.8, 3, 0x3fe0624dd2f1a9fd),
            (0.8, 7, 0x3fcad7f29abcaf4e),
            (0.8, -2, 0x3ff8ffffffffffff),
            (0.3, 5, 0x3f63e81450efdc9c),
            (0.7, 9, 0x3fa4a93a5cae67ea),
            (1.7, 6, 0x40382337b8d3f182),
            (0.9, 13, 0x3fd04497cd165af4),
            (1e-300, 2, 0x0),
            (1e200, -2, 0x0),
            (0.0, -1, 0x7ff0000000000000),
            (0.0, 3, 0x0),
        ];
        for &(x, y, want) in cases {
            assert_eq!(pow(x, y).to_bits(), want, "{}^{}", x, y);
        }
    }
}
