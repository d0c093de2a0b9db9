//! The session's hypernodes indexed by handle. The view sends each
//! hypernode's parent and the nodes directly under it; the plugin needs
//! every node under each, and per node the hypernodes holding it.

use caldera::{Handle, HyperNode};

#[derive(Default)]
pub(crate) struct Topology {
    parent: Vec<Option<usize>>,
    pub(crate) tier: Vec<i32>,
    /// Each hypernode's children, in handle (name) order.
    children: Vec<Vec<usize>>,
    /// The nodes under each hypernode at every depth, in handle order;
    /// `member` marks them.
    pub(crate) nodes: Vec<Vec<usize>>,
    member: Vec<Bitset>,
    /// Per node handle, the hypernodes holding it.
    pub(crate) holding: Vec<Vec<usize>>,
    /// Per node, the first hypernode in name order of the lowest tier any
    /// hypernode has that holds it: Volcano's FindHyperNodeForNode.
    pub(crate) lowest: Vec<Option<usize>>,
    /// Per node, its first hypernode in name order at each tier from
    /// `min_tier`; empty for a node no hypernode holds.
    pub(crate) at_tier: Vec<Vec<Option<usize>>>,
    pub(crate) min_tier: i32,
    pub(crate) max_tier: i32,
    /// The cluster top: the hypernode without a parent.
    pub(crate) top: Option<usize>,
}

#[derive(Clone)]
struct Bitset(Vec<u64>);

impl Bitset {
    fn new(bits: usize) -> Bitset {
        Bitset(vec![0; (bits + 63) / 64])
    }

    fn has(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
}

/// A handle as an index below len, `None` for -1 or one out of range.
fn index(h: Handle, len: usize) -> Option<usize> {
    usize::try_from(h).ok().filter(|&i| i < len)
}

impl Topology {
    pub(crate) fn new(hns: &[HyperNode], node_count: usize) -> Topology {
        let n = hns.len();
        let mut t = Topology {
            parent: hns.iter().map(|h| index(h.parent, n)).collect(),
            tier: hns.iter().map(|h| h.tier).collect(),
            children: vec![Vec::new(); n],
            nodes: vec![Vec::new(); n],
            member: vec![Bitset::new(node_count); n],
            holding: vec![Vec::new(); node_count],
            lowest: vec![None; node_count],
            at_tier: vec![Vec::new(); node_count],
            min_tier: hns.iter().map(|h| h.tier).min().unwrap_or(0),
            max_tier: hns.iter().map(|h| h.tier).max().unwrap_or(0),
            top: None,
        };
        for h in 0..n {
            match t.parent[h] {
                Some(p) => t.children[p].push(h),
                None if t.top.is_none() => t.top = Some(h),
                None => {}
            }
        }
        // A node directly under a hypernode is under each of its ancestors.
        for (h, hn) in hns.iter().enumerate() {
            for node in hn.nodes.iter().filter_map(|&node| index(node, node_count)) {
                for a in t.ancestors(h) {
                    t.member[a].set(node);
                }
            }
        }
        let tiers = (t.max_tier - t.min_tier + 1) as usize;
        for h in 0..n {
            for node in 0..node_count {
                if !t.member[h].has(node) {
                    continue;
                }
                t.nodes[h].push(node);
                t.holding[node].push(h);
                if t.tier[h] == t.min_tier && t.lowest[node].is_none() {
                    t.lowest[node] = Some(h);
                }
                let at = &mut t.at_tier[node];
                if at.is_empty() {
                    *at = vec![None; tiers];
                }
                let i = (t.tier[h] - t.min_tier) as usize;
                if at[i].is_none() {
                    at[i] = Some(h);
                }
            }
        }
        t
    }

    /// Whether the node is under the hypernode.
    pub(crate) fn holds(&self, h: usize, node: Handle) -> bool {
        index(node, self.holding.len()).map_or(false, |node| self.member[h].has(node))
    }

    /// h and then its ancestors up to the cluster top; a cycle (the
    /// scheduler then places no job by topology) ends the walk.
    pub(crate) fn ancestors(&self, h: usize) -> Vec<usize> {
        let mut out = vec![h];
        let mut cur = self.parent[h];
        while let Some(c) = cur {
            if out.contains(&c) {
                break;
            }
            out.push(c);
            cur = self.parent[c];
        }
        out
    }

    /// The lowest hypernode holding both, `None` when none does.
    pub(crate) fn lca(&self, a: usize, b: usize) -> Option<usize> {
        let up = self.ancestors(a);
        self.ancestors(b).into_iter().find(|anc| up.contains(anc))
    }

    /// root and the hypernodes below it, breadth first.
    pub(crate) fn subtree(&self, root: usize) -> Vec<usize> {
        let mut seen = vec![false; self.parent.len()];
        let mut out = vec![root];
        seen[root] = true;
        let mut i = 0;
        while i < out.len() {
            for &c in &self.children[out[i]] {
                if !seen[c] {
                    seen[c] = true;
                    out.push(c);
                }
            }
            i += 1;
        }
        out
    }
}
