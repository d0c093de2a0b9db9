//! The Rust SDK for [Caldera](https://github.com/caldera-scheduler/caldera)
//! scheduling policies compiled to WebAssembly.
//!
//! A policy is a type that implements [`Plugin`] and the hook traits it
//! needs ([`NodeOrder`], [`JobOrder`], [`Predicate`], ...), registered with
//! [`export!`]. The SDK speaks the scheduler's ABI (docs/abi.md in the
//! Caldera repository): it defines the module's exports, decodes the
//! session's view once per session (or only what changed since the previous
//! one), applies the events the scheduler forwards so that the view stays
//! current, and encodes the replies. Plugin code sees plain Rust values,
//! never pointers or bytes, and needs no `unsafe`.
//!
//! ```
//! use caldera::{NodeOrder, Node, Plugin, Session, Task};
//!
//! /// Prefers the nodes with the least idle CPU left after placing the task.
//! #[derive(Default)]
//! struct Tight {
//!     weight: f64,
//! }
//!
//! impl Plugin for Tight {
//!     const NAME: &'static str = "tight";
//!
//!     fn on_session_open(&mut self, s: &Session) -> Result<(), caldera::Error> {
//!         self.weight = s.arguments().float("tight.weight", 1.0)?;
//!         Ok(())
//!     }
//! }
//!
//! impl NodeOrder for Tight {
//!     fn node_order_batch(&mut self, _: &Session, task: &Task, nodes: &[&Node], scores: &mut [f64]) -> Result<(), caldera::Error> {
//!         for (n, score) in nodes.iter().zip(scores) {
//!             let left = n.idle.milli_cpu - task.request.milli_cpu;
//!             if n.allocatable.milli_cpu > 0 && left >= 0 {
//!                 *score = self.weight * 100.0 * (1.0 - left as f64 / n.allocatable.milli_cpu as f64);
//!             }
//!         }
//!         Ok(())
//!     }
//! }
//!
//! caldera::export!(Tight);
//! ```
//!
//! An event handler (`caldera run --event-handler NAME`) implements
//! [`CacheEventHandler`] instead, or as well: it sees each object event
//! before the scheduler's cache records it, and passes, drops or adjusts it.
//!
//! Build it as a `cdylib` for `wasm32-unknown-unknown` (the module then
//! imports only `caldera.log`) or for `wasm32-wasip1` (`wasm32-wasi` before
//! Rust 1.78); both load in the scheduler. A panic aborts: the SDK sends its
//! message and place to the scheduler, which reports them with the trap,
//! discards the instance and applies the plugin's failure policy.
//!
//! Unit-test a policy without Wasm: build a [`View`], wrap it with
//! [`Session::new`] and call the hooks.

mod arguments;
mod claims;
mod delta;
mod event;
mod exports;
mod hooks;
mod keys;
mod log;
mod matching;
mod module;
mod msgpack;
pub mod podrules;
mod probe;
mod session;
mod undo;
mod view;

pub use arguments::{Argument, ArgumentError, Arguments, Value};
pub use claims::{ClaimCheck, ClaimStage, DeviceClaim, NodeClaims, NodeVolumeLimits, TaskClaims, VolumeClaim};
pub use event::{kind, Adjustment, CacheEvent, CacheEventHandler, EventType, EventVerdict, Object};
pub use hooks::{
    Allocatable, Allocate, Annotations, BestNode, Code, DomainRule, DomainRules, Error, Evictable, Eviction, EvictionKind, GradientScope, HyperNodeGradient, HyperNodeOrder, HyperNodeSearch, Invalid, FAIL_LISTED, FAIL_MISSING, FAIL_UNLISTED, MAX_DOMAIN_RULES, JobEnqueueable, JobOrder, JobPipelined, JobReady, JobStarving, JobValid, NodeOrder,
    Overused, Plugin, PrePredicate, Predicate, Preemptable, Preemptive, QueueOrder, Reclaimable, TargetJob, TaskOrder, Verdict,
    SearchPurpose, VictimQueueOrder, VictimTasks, Vote,
};
pub use keys::{append_key_string, append_tolerations_key, append_uvarint, append_varint};
pub use log::{log, Level};
pub use matching::{tolerates_any, NODE_NAME_FIELD};
pub use module::SDK_VERSION;
pub use session::Session;
pub use view::{
    phase, status, Handle, HostPort, Image, Job, KubeRequest, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    DisruptionBudget, Gpu, HyperNode, NetworkTopology, Pod, PodAffinity, PodAffinityTerm, PreferredTerm, Queue, Resource, ResourceQuota, Selector,
    SpreadConstraint, Taint, Task, Toleration, View, WeightedPodAffinityTerm,
};

/// What [`export!`] expands to; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use crate::exports::{abi_version, buffer, call, describe};
    pub use crate::module::{Hooks, Module, Serve};
    pub mod probe {
        pub use crate::probe::*;
    }
}

/// Makes a plugin type the module's policy (or event handler): defines the
/// module's exports (`caldera_abi_version`, `caldera_buffer`,
/// `caldera_describe`, `caldera_call`) and declares to the scheduler every
/// hook trait the type implements, [`CacheEventHandler`] and its kinds
/// included. Use it once, at the root of a `cdylib` crate.
///
/// `export!(MyPolicy)` creates the plugin with `Default::default()`;
/// `export!(MyPolicy, MyPolicy::new())` with an expression. The plugin is
/// created on the first call into a module instance and lives as long as
/// the instance.
///
/// The exports exist only when compiling for Wasm, so the crate's unit
/// tests run natively. They are `#[no_mangle]` functions, which the
/// `unsafe_code` lint reports: a crate that denies `unsafe_code` may use the
/// macro (it allows the lint on them), one that forbids it may not.
#[macro_export]
macro_rules! export {
    ($ty:ty) => {
        $crate::export!($ty, <$ty as ::core::default::Default>::default());
    };
    ($ty:ty, $new:expr) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            fn __caldera_module() -> ::std::boxed::Box<dyn $crate::__private::Serve> {
                ::std::boxed::Box::new($crate::__private::Module::<$ty>::new($new, $crate::__hooks!($ty)))
            }

            #[allow(unsafe_code)]
            #[no_mangle]
            pub extern "C" fn caldera_abi_version() -> u32 {
                $crate::__private::abi_version()
            }

            #[allow(unsafe_code)]
            #[no_mangle]
            pub extern "C" fn caldera_buffer(size: u32) -> u32 {
                $crate::__private::buffer(size)
            }

            #[allow(unsafe_code)]
            #[no_mangle]
            pub extern "C" fn caldera_describe() -> u64 {
                $crate::__private::describe(__caldera_module)
            }

            #[allow(unsafe_code)]
            #[no_mangle]
            pub extern "C" fn caldera_call(hook: u32, len: u32) -> u64 {
                $crate::__private::call(__caldera_module, hook, len)
            }
        };

        // Off Wasm too: the type must be a plugin, and the expression make one.
        #[cfg(not(target_arch = "wasm32"))]
        const _: () = {
            #[allow(dead_code)]
            fn __caldera_module() -> $crate::__private::Module<$ty> {
                $crate::__private::Module::<$ty>::new($new, $crate::__hooks!($ty))
            }
        };
    };
}

#[cfg(test)]
mod claims_tests;
#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod module_tests;
