//! What each queue deserves, and its share of it.

use crate::resource::{diff, exceeded_part, identical, max_of, share, Missing, Quantities, MIN_RESOURCE};
use crate::{Proportion, QueueAttr};

impl Proportion {
    /// Hands the cluster out to the queues by weight, round after round,
    /// until every queue is satisfied or capped or nothing is left. Each
    /// round divides what the previous rounds left among the queues still
    /// asking; what a queue gets beyond its cap or request in a round
    /// returns to the pool for the next. Queues go in handle order, which is
    /// name order, as the native plugin sorts them: the sums are of
    /// fractions and must round alike.
    pub(crate) fn compute_deserved(&mut self) {
        let mut remaining = self.total.clone();
        let mut met = vec![false; self.queues.len()];
        loop {
            // int32 in the Go port, whose sum wraps.
            let mut total_weight = 0i32;
            for (a, &met) in self.queues.iter().zip(&met) {
                if let (Some(a), false) = (a, met) {
                    total_weight = total_weight.wrapping_add(a.weight);
                }
            }
            if total_weight == 0 {
                return;
            }

            let before = remaining.clone();
            let (mut grown, mut shrunk) = (Quantities::default(), Quantities::default());
            // Every queue of a round sees the same remaining.
            for (a, met) in self.queues.iter_mut().zip(met.iter_mut()) {
                let a = match a {
                    Some(a) if !*met => a,
                    _ => continue,
                };
                let old = a.deserved.clone();
                a.deserved.add(remaining.clone().multi(f64::from(a.weight) / f64::from(total_weight)));
                a.deserved.min_dimension(&a.real_capability, Missing::Infinity);
                a.deserved.min_dimension(&a.request, Missing::Zero);
                a.deserved = max_of(&a.deserved, &a.guarantee);
                a.update_share();

                if a.request.less_equal(&a.deserved, Missing::Zero) || identical(&a.deserved, &old) {
                    *met = true;
                }
                let (g, s) = diff(&a.deserved, &old);
                grown.add(&g);
                shrunk.add(&s);
            }

            remaining = exceeded_part(remaining.clone().add(&shrunk), &grown);
            if remaining.is_empty() || identical(&remaining, &before) {
                return;
            }
        }
    }
}

impl QueueAttr {
    /// Recomputes the queue's largest allocated/deserved ratio over the
    /// dimensions it deserves (those not below the tolerance).
    pub(crate) fn update_share(&mut self) {
        let (d, used) = (&self.deserved, &self.allocated);
        let mut best = 0.0;
        let mut consider = |s: f64| {
            if s > best {
                best = s;
            }
        };
        if d.milli_cpu >= MIN_RESOURCE {
            consider(share(used.milli_cpu, d.milli_cpu));
        }
        if d.memory >= MIN_RESOURCE {
            consider(share(used.memory, d.memory));
        }
        for (n, q) in d.scalars.iter() {
            if q >= MIN_RESOURCE {
                consider(share(used.scalars.value(n), q));
            }
        }
        self.share = best;
    }
}
