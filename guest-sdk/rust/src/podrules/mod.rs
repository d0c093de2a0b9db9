//! kube-scheduler v1.32's rules that depend on other pods, InterPodAffinity
//! and PodTopologySpread, over a session's view: the filters and scores of
//! the native predicates and nodeorder plugins (scheduler/podrules in the
//! Caldera repository), over the parsed terms and constraints the view
//! carries since ABI 1.4. A port of the Go SDK's podrules package.
//!
//! An [`Index`] counts the pods on each node: the view's tasks placed on one
//! and each node's `others`. It follows the session's placements through
//! [`Index::add`] and [`Index::remove`] (call them from `on_allocate` and
//! `on_deallocate`) and logs them, so that a state built for one task
//! template catches up with the pods placed since, instead of being rebuilt
//! for every task. The states read the pods from the view, which is why
//! their methods take it.
//!
//! ```
//! use caldera::podrules::{AffinityFilter, AffinityScore, Index};
//! use caldera::{Session, View};
//!
//! let s = Session::new(View::default(), Default::default());
//! let idx = Index::new(s.view());
//! // Once per task template (podrules::template_key), in a scoring hook:
//! # let t = caldera::Task::default();
//! let mut score = AffinityScore::new(&idx, s.view(), &t, 1);
//! let mut out = Vec::new();
//! assert!(!score.score(&idx, s.view(), &[], &mut out), "no term scores");
//! // And in a filtering one:
//! let filter = AffinityFilter::new(&idx, s.view(), &t);
//! assert!(filter.passes_all(), "no term filters");
//! ```

mod affinity;
mod affinity_score;
mod classes;
mod domains;
mod golog;
mod index;
mod rules;
mod sources;
mod spread;
mod spread_score;
mod template;
mod terms;

pub use affinity::{AffinityFilter, REASON_AFFINITY_RULES_NOT_MATCH, REASON_ANTI_AFFINITY_RULES_NOT_MATCH, REASON_EXISTING_ANTI_AFFINITY_NOT_MATCHED};
pub use affinity_score::AffinityScore;
pub use classes::ruled_classes;
pub use index::Index;
pub use rules::{KIND_AFFINITY, KIND_ANTI, KIND_EXISTING_ANTI, KIND_SPREAD};
pub use spread::{SpreadFilter, REASON_SPREAD_CONSTRAINTS_NOT_MATCH, REASON_SPREAD_MISSING_LABEL};
pub use spread_score::SpreadScore;
pub use template::{has_rules, scores_anything, template_key};

/// kube-scheduler's framework.MaxNodeScore.
const MAX_NODE_SCORE: i64 = 100;

/// The well-known hostname label, whose domains are nodes.
const HOSTNAME_KEY: &str = "kubernetes.io/hostname";

#[cfg(test)]
mod filter_tests;
#[cfg(test)]
mod tests;
