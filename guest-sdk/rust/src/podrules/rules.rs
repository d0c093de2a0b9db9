//! Domain rules ([`Plugin::predicate_domain_rules`](crate::Plugin::predicate_domain_rules))
//! restate the filters' states as rules on one label of a node each: on a
//! scheduler that reads them, a task's verdicts are node-local apart from
//! these rules, and the scheduler answers most nodes of a search from
//! verdicts it keeps.

use super::affinity::AffinityFilter;
use super::spread::SpreadFilter;
use crate::hooks::{DomainRules, FAIL_LISTED, FAIL_MISSING, FAIL_UNLISTED};

// Rule kinds, one byte per rule appended to a caller's kinds: tasks whose
// rules have the same kinds, in the same order, word the same failures
// alike, so they may share a rule class.

/// A required affinity term.
pub const KIND_AFFINITY: u8 = b'a';
/// A required anti-affinity term.
pub const KIND_ANTI: u8 = b'n';
/// Existing pods' anti-affinity, one key.
pub const KIND_EXISTING_ANTI: u8 = b'e';
/// A DoNotSchedule spread constraint.
pub const KIND_SPREAD: u8 = b's';

impl AffinityFilter {
    /// Adds the filter's rules in the order [`AffinityFilter::filter`]
    /// checks them and appends their kinds to `kinds`. A node passes them
    /// all exactly when the filter passes it.
    pub fn append_rules(&self, out: &mut DomainRules, kinds: &mut Vec<u8>) {
        if !self.required_affinity.is_empty() {
            // The first pod of a group passes on every node with the keys.
            let first = self.first_of_group();
            for term in &self.required_affinity {
                if first {
                    out.add(&term.key, FAIL_MISSING);
                } else {
                    self.affinity.append_counted(out.add(&term.key, FAIL_MISSING | FAIL_UNLISTED), &term.key);
                }
                kinds.push(KIND_AFFINITY);
            }
        }
        if self.anti.nonzero > 0 {
            for term in &self.required_anti {
                self.anti.append_counted(out.add(&term.key, FAIL_LISTED), &term.key);
                kinds.push(KIND_ANTI);
            }
        }
        for kt in self.existing_anti.keys.iter().filter(|kt| kt.nonzero > 0) {
            kt.append_counted(out.add(&kt.key, FAIL_LISTED));
            kinds.push(KIND_EXISTING_ANTI);
        }
    }
}

impl SpreadFilter {
    /// Adds a rule per constraint, in [`SpreadFilter::filter`]'s order, and
    /// appends their kinds to `kinds`: a node fails where it lacks the key
    /// or its domain is one where the task would break the skew.
    pub fn append_rules(&self, out: &mut DomainRules, kinds: &mut Vec<u8>) {
        for (i, c) in self.cs.iter().enumerate() {
            let r = out.add(&c.topology_key, FAIL_MISSING | FAIL_LISTED);
            let dc = &self.counts[self.count_of[i]];
            let min_match = dc.min_match(c);
            for (id, &n) in dc.counts.iter().enumerate() {
                if n.wrapping_add(self.self_match[i]).wrapping_sub(min_match) > c.max_skew {
                    r.values.push(self.domains[i].names[id].clone());
                }
            }
            kinds.push(KIND_SPREAD);
        }
    }
}
