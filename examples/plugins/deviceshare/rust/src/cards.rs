//! A node's GPU cards as the session sees them (scheduler/gpushare/cards.go
//! in the native plugin): the view's cards as the session opened
//! (`Node::gpus`), the view's tasks that hold them, and the session's
//! grants.
//!
//! The view counts each card's holders and their memory. A hold by a task
//! of the view is kept under the task's handle, as the native plugin keeps
//! it under the pod's UID: a task given cards again (an eviction undone)
//! then replaces its hold on a card instead of adding a second one.

use caldera::{status, Handle, Node, Task};

/// The annotation naming a pod's cards, "0" or "0,2".
pub(crate) const INDEX_ANNOTATION: &str = "volcano.sh/gpu-index";
/// A node's GPU memory over all its cards, and a container's share of one.
pub(crate) const MEMORY_RESOURCE: &str = "volcano.sh/gpu-memory";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Card {
    pub(crate) id: i32,
    memory: i64,
    /// The memory and number of the holders not kept by task: pods that
    /// are not tasks of the view.
    others_used: i64,
    others: i32,
    /// The tasks holding the card, by handle, with the memory each uses.
    holds: Vec<(Handle, i64)>,
}

impl Card {
    fn used(&self) -> i64 {
        self.others_used + self.holds.iter().map(|&(_, m)| m).sum::<i64>()
    }

    /// No pod holds the card.
    fn idle(&self) -> bool {
        self.others == 0 && self.holds.is_empty()
    }

    fn hold(&mut self, task: Handle, memory: i64) {
        match self.holds.iter_mut().find(|(t, _)| *t == task) {
            Some(h) => h.1 = memory,
            None => self.holds.push((task, memory)),
        }
    }

    fn release(&mut self, task: Handle) {
        self.holds.retain(|&(t, _)| t != task);
    }
}

/// A node's cards in ID order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cards {
    pub(crate) cards: Vec<Card>,
}

impl Cards {
    /// The node's cards, the unhealthy ones left out; `None` for a node
    /// without any, which deviceshare leaves to the resource fit. A node
    /// whose every card is unhealthy has cards, none of them usable.
    pub(crate) fn read(n: &Node) -> Option<Cards> {
        if n.gpus.is_empty() {
            return None;
        }
        let cards = n
            .gpus
            .iter()
            .filter(|g| !g.unhealthy)
            .map(|g| Card { id: g.id, memory: g.memory, others_used: g.used, others: g.holders, holds: Vec::new() })
            .collect();
        Some(Cards { cards })
    }

    /// Keeps the hold of a task of the view on the node under its handle:
    /// the cards its `volcano.sh/gpu-index` names, with its GPU memory, as
    /// the view counted them. Finished pods are not on their node, and a
    /// hold the view did not count stays as it is.
    /// Returns the cards claimed.
    pub(crate) fn claim(&mut self, t: &Task) -> Vec<i32> {
        let mut held = Vec::new();
        if (t.gpu_memory <= 0 && t.gpu_number <= 0) || t.status == status::SUCCEEDED || t.status == status::FAILED {
            return held;
        }
        for id in index_of(t).unwrap_or_default() {
            let card = match self.cards.iter_mut().find(|c| i64::from(c.id) == id) {
                Some(c) => c,
                None => continue,
            };
            if card.holds.iter().any(|&(h, _)| h == t.handle) || card.others < 1 {
                continue;
            }
            card.others -= 1;
            card.others_used -= t.gpu_memory;
            card.holds.push((t.handle, t.gpu_memory));
            held.push(card.id);
        }
        held
    }

    /// The first card, by ID, with `memory` free.
    pub(crate) fn fit_by_memory(&self, memory: i64) -> Option<i32> {
        self.cards.iter().find(|c| c.memory - c.used() >= memory).map(|c| c.id)
    }

    /// The first `n` idle cards, by ID.
    pub(crate) fn fit_by_number(&self, n: i64) -> Option<Vec<i32>> {
        let ids: Vec<i32> = self.cards.iter().filter(|c| c.idle()).map(|c| c.id).take(usize::try_from(n).unwrap_or(0)).collect();
        if ids.len() as i64 == n {
            Some(ids)
        } else {
            None
        }
    }

    /// The task holds the cards, with `memory` on each.
    pub(crate) fn take(&mut self, task: Handle, ids: &[i32], memory: i64) {
        for c in self.cards.iter_mut().filter(|c| ids.contains(&c.id)) {
            c.hold(task, memory);
        }
    }

    /// The task holds the cards no more.
    pub(crate) fn give(&mut self, task: Handle, ids: &[i32]) {
        for c in self.cards.iter_mut().filter(|c| ids.contains(&c.id)) {
            c.release(task);
        }
    }
}

/// The cards a placed pod names in its `volcano.sh/gpu-index`; `None` when
/// it names none or the value is not a list of numbers (the native plugin
/// counts no card of it then, and warns).
pub(crate) fn index_of(t: &Task) -> Option<Vec<i64>> {
    let v = t.annotations.get(INDEX_ANNOTATION)?;
    v.split(',').map(|s| s.parse::<i64>().ok()).collect()
}

/// Card IDs as the annotation holds them: ascending, joined by commas.
pub(crate) fn index_value(ids: &[i32]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let parts: Vec<String> = sorted.iter().map(|id| id.to_string()).collect();
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use caldera::Gpu;

    use super::*;

    fn node(gpus: &[(i32, i64, i32)]) -> Node {
        Node {
            name: "n1".into(),
            gpus: gpus.iter().map(|&(id, used, holders)| Gpu { id, memory: 4000, used, holders, unhealthy: false }).collect(),
            ..Node::default()
        }
    }

    fn holder(handle: Handle, memory: i64, index: &str, status: &str) -> Task {
        Task {
            handle,
            gpu_memory: memory,
            status: status.into(),
            node: 0,
            annotations: [(INDEX_ANNOTATION.to_string(), index.to_string())].into_iter().collect(),
            ..Task::default()
        }
    }

    #[test]
    fn index_annotations() {
        let t = |v: &str| holder(0, 1, v, status::RUNNING);
        assert_eq!(index_of(&t("0,2")), Some(vec![0, 2]));
        assert_eq!(index_of(&t("+1")), Some(vec![1]), "Go's Atoi reads a sign");
        for bad in ["", "0,", " 1", "a", "99999999999999999999"] {
            assert_eq!(index_of(&t(bad)), None, "{:?}", bad);
        }
        assert_eq!(index_of(&Task::default()), None);
        assert_eq!(index_value(&[2, 0, 3]), "0,2,3");
        assert_eq!(index_value(&[1]), "1");
    }

    /// A task of the view given a card again replaces its hold (the view
    /// counted it under card 0), and gives back only what it was given.
    #[test]
    fn holds_of_the_views_tasks_are_kept_by_handle() {
        let mut c = Cards::read(&node(&[(0, 3000, 2), (1, 0, 0)])).unwrap();
        c.claim(&holder(4, 2000, "0", status::RUNNING));
        // Another pod holds 1000 of card 0; the task 2000.
        assert_eq!((c.cards[0].others, c.cards[0].others_used, c.cards[0].used()), (1, 1000, 3000));
        c.take(4, &[0], 2000);
        assert_eq!((c.cards[0].used(), c.cards[0].holds.len()), (3000, 1));
        assert_eq!(c.fit_by_memory(1001), Some(1));
        c.give(4, &[0]);
        assert_eq!((c.cards[0].used(), c.cards[0].idle()), (1000, false));
        // Finished pods, unparsable indexes and holds the view did not
        // count stay out.
        let mut c = Cards::read(&node(&[(0, 0, 0), (1, 500, 1)])).unwrap();
        c.claim(&holder(1, 500, "0", status::RUNNING));
        c.claim(&holder(2, 500, "1", status::SUCCEEDED));
        c.claim(&holder(3, 500, "1,x", status::RUNNING));
        assert_eq!(c, Cards::read(&node(&[(0, 0, 0), (1, 500, 1)])).unwrap());
    }

    #[test]
    fn fits() {
        let c = Cards::read(&node(&[(0, 3000, 1), (1, 0, 1), (2, 0, 0), (3, 3999, 0)])).unwrap();
        assert_eq!(c.fit_by_memory(1000), Some(0));
        assert_eq!(c.fit_by_memory(1001), Some(1));
        assert_eq!(c.fit_by_memory(4001), None);
        // Card 1 is held with no memory (a finished pod): not idle.
        assert_eq!(c.fit_by_number(2), Some(vec![2, 3]));
        assert_eq!(c.fit_by_number(3), None);
    }

    #[test]
    fn nodes_without_cards() {
        assert_eq!(Cards::read(&Node::default()), None);
        let mut n = Node::default();
        n.gpus = vec![Gpu { id: 0, memory: 4000, unhealthy: true, ..Gpu::default() }, Gpu { id: 1, memory: 4000, unhealthy: true, ..Gpu::default() }];
        assert_eq!(Cards::read(&n), Some(Cards::default()), "every card unhealthy");
    }
}
