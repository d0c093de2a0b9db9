//! Go's min and max on float64, which the Go port's arithmetic uses: Rust's
//! f64::min and f64::max drop a NaN, and may return either zero of a pair of
//! signed zeros.

/// Go's math.Min: an infinity below all, then NaN, and -0 below +0.
pub(crate) fn go_math_min(x: f64, y: f64) -> f64 {
    if x == f64::NEG_INFINITY || y == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && x == y {
        return if x.is_sign_negative() { x } else { y };
    }
    if x < y {
        x
    } else {
        y
    }
}

/// Go's math.Max: an infinity above all, then NaN, and +0 above -0.
pub(crate) fn go_math_max(x: f64, y: f64) -> f64 {
    if x == f64::INFINITY || y == f64::INFINITY {
        return f64::INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && x == y {
        return if x.is_sign_negative() { y } else { x };
    }
    if x > y {
        x
    } else {
        y
    }
}

/// Go's built-in max on floats: NaN wins over everything, infinities
/// included, and +0 is above -0.
pub(crate) fn go_max(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && x == y {
        return if x.is_sign_negative() { y } else { x };
    }
    if x > y {
        x
    } else {
        y
    }
}
