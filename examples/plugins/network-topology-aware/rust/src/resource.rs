//! Sums of resources in the scheduler's float units, so that every sum and
//! comparison is the native plugin's.

use caldera::Resource;

/// The tolerance under which two quantities count as equal and a quantity
/// as zero, as in the scheduler's resources.
const MIN_RESOURCE: f64 = 0.1;

/// CPU in milli-cores, memory in bytes and scalars in milli-units, as
/// floats. Scalars keep the order they first appeared in (each resource's
/// scalars come sorted by name), which is the order binpacking sums them
/// in.
#[derive(Clone, Debug, Default)]
pub(crate) struct Amount {
    cpu: f64,
    memory: f64,
    scalars: Vec<(String, f64)>,
}

impl Amount {
    pub(crate) fn of(r: &Resource) -> Amount {
        let mut a = Amount::default();
        a.add(r, 1.0);
        a
    }

    /// One dimension, 0 when absent.
    pub(crate) fn get(&self, name: &str) -> f64 {
        match name {
            "cpu" => self.cpu,
            "memory" => self.memory,
            _ => self.scalars.iter().find(|(n, _)| n == name).map_or(0.0, |&(_, v)| v),
        }
    }

    /// Adds sign times r. A scalar r has is kept even when it sums to zero,
    /// as the scheduler's resources keep it.
    pub(crate) fn add(&mut self, r: &Resource, sign: f64) {
        self.cpu += sign * r.milli_cpu as f64;
        self.memory += sign * r.memory as f64;
        for (name, &v) in &r.scalars {
            match self.scalars.iter_mut().find(|(n, _)| n == name) {
                Some(s) => s.1 += sign * v as f64,
                None => self.scalars.push((name.clone(), sign * v as f64)),
            }
        }
    }

    /// Whether self fits in b in every dimension within the tolerance, a
    /// scalar b lacks counting as zero.
    pub(crate) fn less_equal(&self, b: &Amount) -> bool {
        less_equal(self.cpu, b.cpu) && less_equal(self.memory, b.memory) && self.scalars.iter().all(|(n, v)| less_equal(*v, b.get(n)))
    }

    /// The dimensions a request asks for (at least the tolerance): CPU,
    /// memory, then its scalars.
    pub(crate) fn asked(&self) -> impl Iterator<Item = &str> {
        let cpu = Some("cpu").filter(|_| self.cpu >= MIN_RESOURCE);
        let memory = Some("memory").filter(|_| self.memory >= MIN_RESOURCE);
        cpu.into_iter().chain(memory).chain(self.scalars.iter().filter(|(_, v)| *v >= MIN_RESOURCE).map(|(n, _)| n.as_str()))
    }
}

fn less_equal(l: f64, r: f64) -> bool {
    l < r || (l - r).abs() < MIN_RESOURCE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(cpu: i64, scalars: &[(&str, i64)]) -> Resource {
        Resource { milli_cpu: cpu, scalars: scalars.iter().map(|&(n, v)| (n.to_string(), v)).collect(), ..Resource::default() }
    }

    #[test]
    fn sums_keep_scalars_in_first_seen_order_and_compare_within_the_tolerance() {
        let mut a = Amount::of(&resource(1000, &[("nvidia.com/gpu", 2000)]));
        a.add(&resource(500, &[("example.com/fpga", 1000), ("nvidia.com/gpu", 1000)]), 1.0);
        a.add(&resource(0, &[("example.com/fpga", 1000)]), -1.0);
        assert_eq!(a.asked().collect::<Vec<_>>(), ["cpu", "nvidia.com/gpu"]);
        assert_eq!((a.get("cpu"), a.get("nvidia.com/gpu"), a.get("example.com/fpga"), a.get("pods")), (1500.0, 3000.0, 0.0, 0.0));
        let room = Amount::of(&resource(1500, &[("nvidia.com/gpu", 3000)]));
        assert!(a.less_equal(&room));
        assert!(!a.less_equal(&Amount::of(&resource(1500, &[]))));
        assert!(!Amount::of(&resource(1500, &[])).less_equal(&Amount::of(&resource(1499, &[]))));
    }
}
