//! Event handler modules (docs/abi.md, section 8): the `cache_event` hook
//! (ABI 1.2). An event handler sees each object event the scheduler's
//! informers deliver, before the scheduler's cache records it, and says what
//! the cache records: the object as it came, nothing, or the object with
//! some fields replaced. It has no session and no view.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::arguments::Arguments;
use crate::hooks::Plugin;
use crate::msgpack::Writer;
use crate::view::{nullable, Resource, Taint};

/// Handles the scheduler's object events (`caldera run --event-handler
/// NAME`). The scheduler calls [`on_cache_event`](Self::on_cache_event) for
/// each add, update and delete of an object of the kinds in
/// [`EVENT_KINDS`](Self::EVENT_KINDS), before its cache records it, with no
/// session open or during one, on whichever instance of the module is idle:
/// state kept in `self` (what was already logged, say) is per instance.
/// The scheduler sends events in batches; the SDK calls the handler once per
/// event, in the order they happened. A panic fails the whole batch: the
/// handler's failure policy then decides for each of its events.
///
/// A type may be a policy too, implementing other hook traits; the two
/// roles share nothing but the code.
///
/// ```
/// use caldera::{kind, CacheEvent, CacheEventHandler, EventType, EventVerdict, Plugin};
///
/// /// Keeps nodes labelled `retired=true` out of the scheduler's cache.
/// #[derive(Default)]
/// struct Retired;
///
/// impl Plugin for Retired {
///     const NAME: &'static str = "retired";
/// }
///
/// impl CacheEventHandler for Retired {
///     const EVENT_KINDS: &'static [&'static str] = &[kind::NODE];
///
///     fn on_cache_event(&mut self, event: &CacheEvent) -> EventVerdict {
///         let retired = |n: &caldera::Object| n.labels.get("retired").map(String::as_str) == Some("true");
///         match (&event.event_type, &event.new) {
///             (EventType::Add | EventType::Update, Some(n)) if retired(n) => EventVerdict::Drop,
///             _ => EventVerdict::Pass,
///         }
///     }
/// }
///
/// caldera::export!(Retired);
/// ```
pub trait CacheEventHandler: Plugin {
    /// The kinds of object ([`kind`]) whose events the handler wants; the
    /// scheduler calls it for no other. Empty (the default): every kind.
    const EVENT_KINDS: &'static [&'static str] = &[];

    /// Says what the cache records of the event. The verdict of a `delete`
    /// is ignored: a delete is always recorded.
    fn on_cache_event(&mut self, event: &CacheEvent) -> EventVerdict;
}

/// The kinds of object the scheduler's informers deliver
/// ([`CacheEvent::kind`]); a custom informer may add others.
pub mod kind {
    pub const POD: &str = "Pod";
    pub const NODE: &str = "Node";
    pub const POD_GROUP: &str = "PodGroup";
    pub const QUEUE: &str = "Queue";
    pub const PRIORITY_CLASS: &str = "PriorityClass";
    pub const EXTERNAL_RESERVATION: &str = "ExternalReservation";
}

/// What happened to the object.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    /// A new object: [`CacheEvent::old`] is `None`.
    Add,
    /// A changed object: both versions are there.
    Update,
    /// A deleted object: [`CacheEvent::new`] is `None`.
    Delete,
    /// A type a newer scheduler may send, as it named it.
    Other(String),
}

impl EventType {
    /// The name the ABI gives the type: `add`, `update` or `delete`.
    pub fn as_str(&self) -> &str {
        match self {
            EventType::Add => "add",
            EventType::Update => "update",
            EventType::Delete => "delete",
            EventType::Other(s) => s,
        }
    }
}

impl From<&str> for EventType {
    fn from(s: &str) -> Self {
        match s {
            "add" => EventType::Add,
            "update" => EventType::Update,
            "delete" => EventType::Delete,
            other => EventType::Other(other.to_string()),
        }
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TypeName;
        impl<'de> Visitor<'de> for TypeName {
            type Value = EventType;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an event type string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<EventType, E> {
                Ok(EventType::from(v))
            }
        }
        d.deserialize_str(TypeName)
    }
}

impl Serialize for EventType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One object event, as the handler sees it. The scheduler sends events in
/// batches, each object's events oldest first; the SDK calls the handler
/// once per event, in order.
///
/// It decodes from one event of the batch, `{type, kind, old, new}`;
/// [`arguments`](Self::arguments), which the batch carries once for all
/// its events, is then left empty.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct CacheEvent {
    #[serde(rename = "type")]
    pub event_type: EventType,
    /// One of [`kind`], or a custom informer's kind.
    #[serde(default, deserialize_with = "nullable")]
    pub kind: String,
    /// The previous version; `None` for an add.
    #[serde(default)]
    pub old: Option<Object>,
    /// The new version; `None` for a delete.
    #[serde(default)]
    pub new: Option<Object>,
    /// The handler's arguments from `--event-handler-config`: the batch's,
    /// the same for each of its events.
    #[serde(skip)]
    pub arguments: Arguments,
}

/// `cache_event`'s request: `{events: [event, ...], arguments?}`, events in
/// the order they happened. A nil or absent list is an empty batch.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Batch {
    #[serde(default, deserialize_with = "nullable")]
    pub events: Vec<CacheEvent>,
    #[serde(default)]
    pub arguments: Arguments,
}

impl Batch {
    /// Calls `f` on each event, in order, each with the batch's arguments,
    /// and appends its verdicts to `out`. The arguments move from event to
    /// event: a batch of many events copies them never.
    pub(crate) fn serve(self, mut f: impl FnMut(&CacheEvent) -> EventVerdict, out: &mut Vec<EventVerdict>) {
        let Batch { events, mut arguments } = self;
        out.reserve(events.len());
        for mut ev in events {
            std::mem::swap(&mut ev.arguments, &mut arguments);
            out.push(f(&ev));
            std::mem::swap(&mut ev.arguments, &mut arguments);
        }
    }
}

impl CacheEvent {
    /// An add of `new`, for a handler's unit tests.
    pub fn add(kind: &str, new: Object) -> CacheEvent {
        CacheEvent::with(EventType::Add, kind, None, Some(new))
    }

    /// An update from `old` to `new`, for a handler's unit tests.
    pub fn update(kind: &str, old: Object, new: Object) -> CacheEvent {
        CacheEvent::with(EventType::Update, kind, Some(old), Some(new))
    }

    /// A delete of `old`, for a handler's unit tests.
    pub fn delete(kind: &str, old: Object) -> CacheEvent {
        CacheEvent::with(EventType::Delete, kind, Some(old), None)
    }

    fn with(event_type: EventType, kind: &str, old: Option<Object>, new: Option<Object>) -> CacheEvent {
        CacheEvent { event_type, kind: kind.to_string(), old, new, arguments: Arguments::default() }
    }
}

/// The compact form of an object: the fields of its kind, the others empty,
/// zero or `None` (docs/abi.md, section 8). Resources are in the units of
/// the view: milli-CPU, bytes, scalar milli-units (`pods` as a count).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Object {
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(deserialize_with = "nullable")]
    pub uid: String,
    #[serde(deserialize_with = "nullable")]
    pub labels: BTreeMap<String, String>,
    #[serde(deserialize_with = "nullable")]
    pub annotations: BTreeMap<String, String>,

    /// A node's `status.allocatable`; a queue's `spec.capability`.
    pub allocatable: Option<Resource>,
    /// A node's `spec.taints`.
    #[serde(deserialize_with = "nullable")]
    pub taints: Vec<Taint>,
    /// A node's `spec.unschedulable`.
    pub unschedulable: bool,

    /// What the cache counts of a pod: its containers', init containers'
    /// and overhead's requests.
    pub requests: Option<Resource>,
    /// A pod's `spec.priority`.
    pub priority: Option<i32>,
    /// A pod's node, or an external reservation's.
    #[serde(deserialize_with = "nullable")]
    pub node_name: String,
    /// A pod's or a PodGroup's `status.phase`.
    #[serde(deserialize_with = "nullable")]
    pub phase: String,
    /// A pod's `spec.schedulerName`.
    #[serde(deserialize_with = "nullable")]
    pub scheduler_name: String,
    /// A pod's PodGroup, from its annotation.
    #[serde(deserialize_with = "nullable")]
    pub group: String,

    /// A PodGroup's `spec.queue`.
    #[serde(deserialize_with = "nullable")]
    pub queue: String,
    /// A PodGroup's `spec.minMember`.
    pub min_member: i32,
    /// A PodGroup's `spec.priorityClassName`.
    #[serde(deserialize_with = "nullable")]
    pub priority_class_name: String,

    /// A queue's `spec.weight`.
    pub weight: i32,
    /// A queue's `status.state`.
    #[serde(deserialize_with = "nullable")]
    pub state: String,

    /// A PriorityClass's value.
    pub value: Option<i32>,

    /// What an external reservation holds on [`node_name`](Self::node_name).
    pub reserved: Option<Resource>,
}

/// A handler's answer: what the cache records of the event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum EventVerdict {
    /// Record the event as it came.
    #[default]
    Pass,
    /// Keep this version of the object out of the cache; for an update,
    /// the cache forgets what it had of the object.
    Drop,
    /// Record the object with each field the adjustment holds replacing
    /// its own. An adjustment the kind does not take fails that event, and
    /// the handler's failure policy decides.
    Adjust(Adjustment),
}

impl EventVerdict {
    /// Records a node with another allocatable.
    pub fn adjust_allocatable(allocatable: Resource) -> EventVerdict {
        EventVerdict::Adjust(Adjustment { allocatable: Some(allocatable), ..Adjustment::default() })
    }
}

/// The fields an [`EventVerdict::Adjust`] replaces; `None` keeps the
/// object's own. An empty map or list clears the object's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjustment {
    /// A node's allocatable; dimensions it leaves out are zero.
    pub allocatable: Option<Resource>,
    /// A node's or a pod's labels.
    pub labels: Option<BTreeMap<String, String>>,
    /// A node's taints.
    pub taints: Option<Vec<Taint>>,
    /// What the cache counts of a pod.
    pub requests: Option<Resource>,
    /// A pod's priority.
    pub priority: Option<i32>,
}

/// `cache_event`'s result: an array of verdicts, one per event of the
/// batch, in its order.
pub(crate) fn encode_verdicts(w: &mut Writer<'_>, verdicts: &[EventVerdict]) {
    w.array(verdicts.len());
    for v in verdicts {
        encode_verdict(w, v);
    }
}

/// `{action, allocatable?, labels?, taints?, requests?, priority?}`: the
/// action first, then the fields present, in this order, so that every SDK
/// writes the same bytes (testdata/abi/reply_cache_event.msgpack).
fn encode_verdict(w: &mut Writer<'_>, v: &EventVerdict) {
    let a = match v {
        EventVerdict::Pass | EventVerdict::Drop => {
            w.map(1);
            w.str("action");
            w.str(if *v == EventVerdict::Pass { "pass" } else { "drop" });
            return;
        }
        EventVerdict::Adjust(a) => a,
    };
    let present = [a.allocatable.is_some(), a.labels.is_some(), a.taints.is_some(), a.requests.is_some(), a.priority.is_some()];
    w.map(1 + present.iter().filter(|&&p| p).count());
    w.str("action");
    w.str("adjust");
    if let Some(r) = &a.allocatable {
        w.str("allocatable");
        encode_resource(w, r);
    }
    if let Some(labels) = &a.labels {
        w.str("labels");
        w.map(labels.len());
        for (k, v) in labels {
            w.str(k);
            w.str(v);
        }
    }
    if let Some(taints) = &a.taints {
        w.str("taints");
        w.array(taints.len());
        for t in taints {
            w.map(3);
            for (k, v) in [("key", &t.key), ("value", &t.value), ("effect", &t.effect)] {
                w.str(k);
                w.str(v);
            }
        }
    }
    if let Some(r) = &a.requests {
        w.str("requests");
        encode_resource(w, r);
    }
    if let Some(p) = a.priority {
        w.str("priority");
        w.int(i64::from(p));
    }
}

/// `{cpu, memory, scalars?}`, scalars by name and left out when there are
/// none.
fn encode_resource(w: &mut Writer<'_>, r: &Resource) {
    w.map(2 + usize::from(!r.scalars.is_empty()));
    w.str("cpu");
    w.int(r.milli_cpu);
    w.str("memory");
    w.int(r.memory);
    if !r.scalars.is_empty() {
        w.str("scalars");
        w.map(r.scalars.len());
        for (k, &v) in &r.scalars {
            w.str(k);
            w.int(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(v: &EventVerdict) -> Vec<u8> {
        let mut b = Vec::new();
        encode_verdict(&mut Writer(&mut b), v);
        b
    }

    /// `{type, kind, old: nil, new: {name}}`.
    fn event(w: &mut Writer<'_>, ev_type: &str, name: &str) {
        w.map(4);
        w.str("type");
        w.str(ev_type);
        w.str("kind");
        w.str("Node");
        w.str("old");
        w.nil();
        w.str("new");
        w.map(1);
        w.str("name");
        w.str(name);
    }

    #[test]
    fn a_batch_hands_its_arguments_to_each_event_in_order() {
        let mut b = Vec::new();
        let mut w = Writer(&mut b);
        w.map(2);
        // Arguments may come first; an event's own are not the batch's.
        w.str("arguments");
        w.map(1);
        w.str("reserve");
        w.int(6);
        w.str("events");
        w.array(3);
        event(&mut w, "add", "n1");
        event(&mut w, "update", "n2");
        w.map(3);
        w.str("type");
        w.str("delete");
        w.str("kind");
        w.str("Node");
        w.str("arguments");
        w.map(1);
        w.str("reserve");
        w.int(7);
        let batch: Batch = rmp_serde::from_slice(&b).unwrap();
        assert_eq!(batch.events.len(), 3);
        assert!(batch.events.iter().all(|e| e.arguments.iter().next().is_none()), "decoded events have no arguments");

        let mut seen = Vec::new();
        let mut out = vec![EventVerdict::Drop];
        batch.serve(
            |ev| {
                let name = ev.new.as_ref().map_or("-", |n| n.name.as_str());
                seen.push(format!("{} {} {}", ev.event_type, name, ev.arguments.get("reserve").unwrap()));
                if ev.event_type == EventType::Update {
                    EventVerdict::Drop
                } else {
                    EventVerdict::Pass
                }
            },
            &mut out,
        );
        assert_eq!(seen, ["add n1 6", "update n2 6", "delete - 6"]);
        assert_eq!(out, [EventVerdict::Drop, EventVerdict::Pass, EventVerdict::Drop, EventVerdict::Pass], "appended");

        let mut b = Vec::new();
        encode_verdicts(&mut Writer(&mut b), &out[1..]);
        assert_eq!(b, [&b"\x93"[..], b"\x81\xa6action\xa4pass", b"\x81\xa6action\xa4drop", b"\x81\xa6action\xa4pass"].concat());
        b.clear();
        encode_verdicts(&mut Writer(&mut b), &[]);
        assert_eq!(b, b"\x90");
    }

    #[test]
    fn empty_batches() {
        for raw in [&b"\x80"[..], b"\x81\xa6events\xc0", b"\x82\xa6events\x90\xa9arguments\xc0"] {
            let batch: Batch = rmp_serde::from_slice(raw).unwrap();
            assert!(batch.events.is_empty() && batch.arguments.iter().next().is_none(), "{:02x?}", raw);
        }
        let e = rmp_serde::from_slice::<Batch>(b"\x81\xa6events\x05").unwrap_err();
        assert!(e.to_string().contains("invalid type"), "{}", e);
    }

    #[test]
    fn pass_and_drop_are_an_action_alone() {
        assert_eq!(encoded(&EventVerdict::Pass), b"\x81\xa6action\xa4pass");
        assert_eq!(encoded(&EventVerdict::Drop), b"\x81\xa6action\xa4drop");
        assert_eq!(encoded(&EventVerdict::Adjust(Adjustment::default())), b"\x81\xa6action\xa6adjust");
    }

    #[test]
    fn adjustments_keep_a_fixed_order_and_sorted_keys() {
        let labels: BTreeMap<String, String> = [("zone", "b"), ("arch", "arm64")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let r = |cpu, scalars: &[(&str, i64)]| Resource {
            milli_cpu: cpu,
            memory: 300,
            scalars: scalars.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        };
        let v = EventVerdict::Adjust(Adjustment {
            priority: Some(-40000),
            requests: Some(r(100, &[])),
            taints: Some(vec![Taint { key: "k".into(), value: "v".into(), effect: "NoSchedule".into() }]),
            labels: Some(labels),
            allocatable: Some(r(200, &[("pods", 110), ("example.com/b", 1), ("example.com/a", 2)])),
        });
        let mut want = Vec::new();
        let mut w = Writer(&mut want);
        w.map(6);
        w.str("action");
        w.str("adjust");
        w.str("allocatable");
        w.map(3);
        w.str("cpu");
        w.int(200);
        w.str("memory");
        w.int(300);
        w.str("scalars");
        w.map(3);
        for (k, v) in [("example.com/a", 2), ("example.com/b", 1), ("pods", 110)] {
            w.str(k);
            w.int(v);
        }
        w.str("labels");
        w.map(2);
        for (k, v) in [("arch", "arm64"), ("zone", "b")] {
            w.str(k);
            w.str(v);
        }
        w.str("taints");
        w.array(1);
        w.map(3);
        for (k, v) in [("key", "k"), ("value", "v"), ("effect", "NoSchedule")] {
            w.str(k);
            w.str(v);
        }
        w.str("requests");
        w.map(2);
        w.str("cpu");
        w.int(100);
        w.str("memory");
        w.int(300);
        w.str("priority");
        w.int(-40000);
        assert_eq!(encoded(&v), want);
        // 200 takes msgp's int16, never rmp's uint8; -40000 int32.
        assert!(want.windows(3).any(|b| b == [0xd1, 0x00, 0xc8]));
        assert!(want.ends_with(&[0xd2, 0xff, 0xff, 0x63, 0xc0]));
    }

    #[test]
    fn empty_labels_and_taints_are_sent_to_clear_them() {
        let v = EventVerdict::Adjust(Adjustment { labels: Some(BTreeMap::new()), taints: Some(Vec::new()), ..Adjustment::default() });
        assert_eq!(encoded(&v), b"\x83\xa6action\xa6adjust\xa6labels\x80\xa6taints\x90");
    }

    /// Absent fields and a missing `scalars` decode as empty; unknown
    /// fields and types of a newer scheduler are kept or skipped.
    #[test]
    fn requests_tolerate_absent_and_newer_fields() {
        let mut b = Vec::new();
        let mut w = Writer(&mut b);
        w.map(4);
        w.str("type");
        w.str("resync");
        w.str("kind");
        w.str("Pod");
        w.str("old");
        w.nil();
        w.str("new");
        w.map(4);
        w.str("name");
        w.str("p");
        w.str("requests");
        w.map(2);
        w.str("cpu");
        w.int(500);
        w.str("memory");
        w.int(1 << 20);
        w.str("fromABI1_9");
        w.array(0);
        w.str("labels");
        w.nil();
        let ev: CacheEvent = rmp_serde::from_slice(&b).unwrap();
        assert_eq!(ev.event_type, EventType::Other("resync".into()));
        assert_eq!((ev.kind.as_str(), ev.old.is_none()), ("Pod", true));
        let p = ev.new.unwrap();
        assert_eq!(p.requests, Some(Resource { milli_cpu: 500, memory: 1 << 20, scalars: BTreeMap::new() }));
        assert_eq!((p.allocatable, p.priority, p.labels.len(), p.min_member), (None, None, 0, 0));
        assert!(ev.arguments.iter().next().is_none());
    }
}
