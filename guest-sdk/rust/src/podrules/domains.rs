//! Topology domains: the values of a key on the session's nodes, numbered,
//! and pods counted per domain.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::index::Index;
use crate::hooks::DomainRule;
use crate::view::View;

/// The values of one topology key on the session's nodes, numbered: the
/// filters count per domain number and find a node's domain by its handle,
/// with no lookup by string per node.
#[derive(Debug)]
pub(crate) struct KeyDomains {
    /// of[node] is the number of the node's value, -1 when it lacks the
    /// key.
    pub(crate) of: Vec<i32>,
    pub(crate) n: usize,
    /// names[id] is the value numbered id: domain rules name domains by
    /// value.
    pub(crate) names: Vec<String>,
    /// No two nodes share a value: a domain is a node.
    pub(crate) one_per_node: bool,
}

impl Index {
    /// Numbers the values of `key` on the view's nodes, once per session:
    /// `v` is the view the index was made from.
    pub(crate) fn domains_of(&self, v: &View, key: &str) -> Rc<KeyDomains> {
        if let Some(kd) = self.domains.borrow().get(key) {
            return Rc::clone(kd);
        }
        let mut kd = KeyDomains { of: vec![-1; v.nodes.len()], n: 0, names: Vec::new(), one_per_node: false };
        let mut ids: HashMap<&str, i32> = HashMap::new();
        let mut carrying = 0;
        for (i, node) in v.nodes.iter().enumerate() {
            let value = match node.labels.get(key) {
                Some(value) => value,
                None => continue,
            };
            carrying += 1;
            let next = ids.len() as i32;
            let id = *ids.entry(value.as_str()).or_insert_with(|| {
                kd.names.push(value.clone());
                next
            });
            kd.of[i] = id;
        }
        kd.n = ids.len();
        kd.one_per_node = kd.n == carrying;
        let kd = Rc::new(kd);
        self.domains.borrow_mut().insert(key.to_string(), Rc::clone(&kd));
        kd
    }
}

/// Pods counted per topology domain, key by key.
#[derive(Debug, Default)]
pub(crate) struct DomainTally {
    pub(crate) keys: Vec<KeyTally>,
    /// How many domains, over all keys, hold a count.
    pub(crate) nonzero: i64,
}

#[derive(Debug)]
pub(crate) struct KeyTally {
    pub(crate) key: String,
    domains: Rc<KeyDomains>,
    /// A key of few domains (zones) is counted densely; one of many
    /// (hostnames), of which a state counts pods in a handful, sparsely: a
    /// dense tally per template of a 5,000-node session's hostnames would
    /// hold megabytes of zeros.
    dense: Vec<i32>,
    pub(crate) sparse: Option<BTreeMap<i32, i32>>,
    pub(crate) nonzero: i64,
}

/// The most domains a key's tally holds densely.
pub(crate) const DENSE_DOMAINS: usize = 64;

impl KeyTally {
    fn new(key: &str, domains: Rc<KeyDomains>) -> KeyTally {
        let (dense, sparse) = if domains.n <= DENSE_DOMAINS { (vec![0; domains.n], None) } else { (Vec::new(), Some(BTreeMap::new())) };
        KeyTally { key: key.to_string(), domains, dense, sparse, nonzero: 0 }
    }

    fn get(&self, id: i32) -> i32 {
        match &self.sparse {
            Some(m) => m.get(&id).copied().unwrap_or(0),
            None => self.dense[id as usize],
        }
    }

    /// The count of the node's domain: 0 when the node lacks the key.
    pub(crate) fn at(&self, node: usize) -> i32 {
        match self.domains.of[node] {
            id if id >= 0 => self.get(id),
            _ => 0,
        }
    }

    /// Whether the node carries the key.
    pub(crate) fn carried_by(&self, node: usize) -> bool {
        self.domains.of[node] >= 0
    }

    /// Lists the domains that hold a count.
    pub(crate) fn append_counted(&self, r: &mut DomainRule) {
        match &self.sparse {
            Some(m) => {
                for (&id, &n) in m {
                    if n > 0 {
                        r.values.push(self.domains.names[id as usize].clone());
                    }
                }
            }
            None => {
                for (id, &n) in self.dense.iter().enumerate() {
                    if n > 0 {
                        r.values.push(self.domains.names[id].clone());
                    }
                }
            }
        }
    }
}

impl DomainTally {
    /// The tally of `key`, made on first use; a state has a few keys, so a
    /// list beats a map.
    pub(crate) fn for_key(&mut self, idx: &Index, v: &View, key: &str) -> &mut KeyTally {
        let i = match self.keys.iter().position(|kt| kt.key == key) {
            Some(i) => i,
            None => {
                self.keys.push(KeyTally::new(key, idx.domains_of(v, key)));
                self.keys.len() - 1
            }
        };
        &mut self.keys[i]
    }

    /// The tally of `key`, if anything made it.
    pub(crate) fn find(&self, key: &str) -> Option<&KeyTally> {
        self.keys.iter().find(|kt| kt.key == key)
    }

    /// Adds `d` to the node's domain of `key`; a node without the key has
    /// no domain and counts nothing.
    pub(crate) fn update(&mut self, idx: &Index, v: &View, node: usize, key: &str, d: i64) {
        let kt = self.for_key(idx, v, key);
        let id = kt.domains.of[node];
        if id < 0 {
            return;
        }
        let before = kt.get(id);
        let after = before.wrapping_add(d as i32);
        match &mut kt.sparse {
            None => kt.dense[id as usize] = after,
            Some(m) if after == 0 => {
                m.remove(&id);
            }
            Some(m) => {
                m.insert(id, after);
            }
        }
        if before == 0 && after != 0 {
            kt.nonzero += 1;
            self.nonzero += 1;
        } else if before != 0 && after == 0 {
            kt.nonzero -= 1;
            self.nonzero -= 1;
        }
    }

    /// The count of the node's domain of `key`: 0 when the node lacks the
    /// key or nothing was counted for it.
    pub(crate) fn at(&self, node: usize, key: &str) -> i32 {
        self.find(key).map_or(0, |kt| kt.at(node))
    }

    /// Lists the domains of `key` that hold a count.
    pub(crate) fn append_counted(&self, r: &mut DomainRule, key: &str) {
        if let Some(kt) = self.find(key) {
            kt.append_counted(r);
        }
    }
}
