//! Where the arithmetic must follow Go and the scheduler's maps rather than
//! Rust's own: signed zeros and NaN in min and max, and a resource without
//! a list of scalars against one with an empty list.

use caldera::Resource;

use super::*;
use crate::gomath::{go_math_max, go_math_min, go_max};

fn q(cpu: f64, scalars: Option<&[(&str, f64)]>) -> Quantities {
    let mut r = Quantities { milli_cpu: cpu, ..Quantities::default() };
    for &(n, v) in scalars.into_iter().flatten() {
        *r.scalars.at(n) = v;
    }
    if scalars.is_some() {
        r.scalars.list();
    }
    r
}

fn scalars(r: &Quantities) -> Vec<(String, f64)> {
    r.scalars.iter().map(|(n, v)| (n.to_string(), v)).collect()
}

fn bits(x: f64) -> u64 {
    x.to_bits()
}

#[test]
fn min_and_max_are_go_s() {
    // Rust's f64::min and f64::max drop a NaN and may pick either zero.
    assert_eq!(bits(go_math_min(0.0, -0.0)), bits(-0.0));
    assert_eq!(bits(go_math_min(-0.0, 0.0)), bits(-0.0));
    assert!(go_math_min(1.0, f64::NAN).is_nan());
    assert_eq!(go_math_min(f64::NAN, f64::NEG_INFINITY), f64::NEG_INFINITY);
    assert_eq!(bits(go_math_max(-0.0, 0.0)), bits(0.0));
    assert!(go_math_max(f64::NAN, 1.0).is_nan());
    assert_eq!(go_math_max(f64::NAN, f64::INFINITY), f64::INFINITY);
    // The built-in max has no infinity rule: NaN wins.
    assert!(go_max(f64::INFINITY, f64::NAN).is_nan());
    assert_eq!(bits(go_max(-0.0, 0.0)), bits(0.0));
    assert_eq!(bits(go_max(-0.0, -0.0)), bits(-0.0));
    assert_eq!(go_max(2.0, 3.0), 3.0);
}

#[test]
fn sub_leaves_scalars_alone_without_a_list() {
    let gpu = q(0.0, Some(&[("gpu", 2.0)]));
    let mut none = q(5.0, None);
    none.sub(&gpu);
    assert_eq!((none.milli_cpu, none.scalars.is_listed()), (5.0, false));
    let mut empty = q(5.0, Some(&[]));
    empty.sub(&gpu);
    assert_eq!(scalars(&empty), vec![("gpu".to_string(), -2.0)]);
}

#[test]
fn fits_without_a_list_compares_cpu_and_memory_only() {
    let req = q(1.0, Some(&[("gpu", 1.0), ("pods", 1.0)]));
    let limit = q(10.0, Some(&[]));
    assert!(fits_requested(&q(5.0, None), &req, &limit));
    assert!(!fits_requested(&q(5.0, Some(&[("gpu", 1.0)])), &req, &limit));
    // Pods, and what the request does not ask for, never count.
    assert!(fits_requested(&q(5.0, Some(&[("pods", 9.0), ("cpu-like", 9.0)])), &q(1.0, Some(&[("pods", 1.0)])), &limit));
    // Strict, without tolerance.
    assert!(!fits_requested(&q(10.05, None), &req, &limit));
}

#[test]
fn identical_tells_a_zero_from_an_absent_dimension() {
    assert!(identical(&q(1.0, None), &q(1.0, Some(&[]))));
    assert!(!identical(&q(1.0, Some(&[("gpu", 0.0)])), &q(1.0, Some(&[]))));
    assert!(!identical(&q(1.0, Some(&[("gpu", 0.0)])), &q(1.0, Some(&[("pods", 0.0)]))));
}

#[test]
fn less_equal_with_a_missing_dimension() {
    let gpu = q(1.0, Some(&[("gpu", 1.0)]));
    let bare = q(1.0, Some(&[]));
    // Infinity: what d lacks passes, what self lacks fails.
    assert!(gpu.less_equal(&bare, Missing::Infinity));
    assert!(!bare.less_equal(&gpu, Missing::Infinity));
    // Zero: what d lacks counts as 0.
    assert!(!gpu.less_equal(&bare, Missing::Zero));
    assert!(bare.less_equal(&gpu, Missing::Zero));
    // Within the tolerance.
    assert!(q(1.05, None).less_equal(&q(1.0, None), Missing::Zero));
}

#[test]
fn max_of_drops_negative_scalars_and_keeps_the_list() {
    let m = max_of(&q(1.0, Some(&[("a", -1.0), ("b", 2.0)])), &q(3.0, Some(&[("b", 1.0), ("c", -0.5)])));
    assert_eq!((m.milli_cpu, scalars(&m)), (3.0, vec![("b".to_string(), 2.0)]));
    assert!(!max_of(&q(1.0, None), &q(2.0, None)).scalars.is_listed());
    assert!(max_of(&q(1.0, None), &q(2.0, Some(&[]))).scalars.is_listed());
}

#[test]
fn diff_splits_growth_from_shrinkage() {
    let (g, s) = diff(&q(3.0, Some(&[("a", 1.0), ("b", 2.0)])), &q(5.0, Some(&[("b", 2.0), ("c", 4.0)])));
    assert_eq!((g.milli_cpu, scalars(&g)), (0.0, vec![("a".to_string(), 1.0)]));
    // An unchanged dimension is recorded as shrunk by 0.
    assert_eq!((s.milli_cpu, scalars(&s)), (2.0, vec![("b".to_string(), 0.0), ("c".to_string(), 4.0)]));
}

#[test]
fn unmet_min_resources_skips_quota_names() {
    let min = Resource {
        milli_cpu: 3000,
        memory: 0,
        scalars: [("count/pods", 4), ("ephemeral-storage", 9), ("gpu", 0), ("pods", 2), ("rdma", 5)].iter().map(|&(n, v)| (n.to_string(), v)).collect(),
    };
    let allocated = q(1000.0, Some(&[("pods", 1.0), ("rdma", 5.0)]));
    let mut out = Quantities::default();
    let unmet = unmet_min_resources(&mut out, &min, &allocated);
    // A dimension nothing allocated claims all of its minimum, 0 included.
    assert_eq!((unmet.milli_cpu, scalars(unmet)), (2000.0, vec![("gpu".to_string(), 0.0), ("pods".to_string(), 1.0)]));
}

#[test]
fn reused_buffers_forget_old_entries() {
    let mut r = q(0.0, Some(&[("a", 1.0), ("b", 2.0)]));
    r.copy_from(&q(1.0, Some(&[("c", 3.0)])));
    assert_eq!(scalars(&r), vec![("c".to_string(), 3.0)]);
    assert_eq!(r.scalars.value("b"), 0.0);
    r.set_view(&Resource::default());
    assert!(!r.scalars.is_listed() && r.scalars.get("c").is_none());
    let c = q(0.0, Some(&[("a", 1.0), ("b", 2.0)]));
    r.copy_from(&c);
    assert_eq!(scalars(&r.clone()), scalars(&c));
}
