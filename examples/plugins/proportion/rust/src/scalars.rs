//! A resource's scalar dimensions as the Go port keeps them: a short list
//! searched linearly, in the order the dimensions first appeared, that may
//! be absent altogether (the scheduler's nil map) as well as empty.

/// Scalar quantities by name. `listed` tells an absent list from an empty
/// one: subtracting from a resource without one leaves its scalars alone,
/// and so does a fit check, as with the scheduler's nil map. Entries past
/// `len` are dead, kept so that their name buffers serve the next entries
/// and the hot hooks allocate nothing once warm.
#[derive(Debug, Default)]
pub(crate) struct Scalars {
    listed: bool,
    len: usize,
    slots: Vec<(String, f64)>,
}

impl Clone for Scalars {
    fn clone(&self) -> Scalars {
        Scalars { listed: self.listed, len: self.len, slots: self.live().to_vec() }
    }
}

impl Scalars {
    fn live(&self) -> &[(String, f64)] {
        &self.slots[..self.len]
    }

    /// Whether the list exists, empty or not.
    pub(crate) fn is_listed(&self) -> bool {
        self.listed
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The live entries, in the order they first appeared.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, f64)> + '_ {
        self.live().iter().map(|(n, q)| (n.as_str(), *q))
    }

    /// The quantities alone, to change them in place.
    pub(crate) fn quantities_mut(&mut self) -> impl Iterator<Item = (&str, &mut f64)> + '_ {
        self.slots[..self.len].iter_mut().map(|(n, q)| (n.as_str(), q))
    }

    /// The quantity of `name` when the dimension is present.
    pub(crate) fn get(&self, name: &str) -> Option<f64> {
        self.live().iter().find(|(n, _)| n == name).map(|&(_, q)| q)
    }

    /// The quantity of `name`, 0 when absent.
    pub(crate) fn value(&self, name: &str) -> f64 {
        self.get(name).unwrap_or(0.0)
    }

    /// The quantity of `name`, appended at 0 when absent; the list then
    /// exists, as assigning to a map's entry needs the map made first.
    pub(crate) fn at(&mut self, name: &str) -> &mut f64 {
        self.listed = true;
        let i = match self.live().iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                if self.len == self.slots.len() {
                    self.slots.push((name.to_string(), 0.0));
                } else {
                    let slot = &mut self.slots[self.len];
                    slot.0.clear();
                    slot.0.push_str(name);
                    slot.1 = 0.0;
                }
                self.len += 1;
                self.len - 1
            }
        };
        &mut self.slots[i].1
    }

    /// Makes the list exist, empty if it was absent.
    pub(crate) fn list(&mut self) {
        self.listed = true;
    }

    /// Empties the list, keeping it listed or not.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Drops the list: the resource then has none.
    pub(crate) fn unlist(&mut self) {
        self.listed = false;
        self.len = 0;
    }

    /// Makes the list `d`'s, listed or not, reusing its buffers.
    pub(crate) fn copy_from(&mut self, d: &Scalars) {
        self.clear();
        for (n, q) in d.iter() {
            *self.at(n) = q;
        }
        self.listed = d.listed;
    }
}
