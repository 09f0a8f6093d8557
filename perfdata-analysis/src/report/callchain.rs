//! perf report's call graphs: each histogram entry's sample paths merged into perf's callchain
//! tree (`util/callchain.c`: a node holds a run of frames that no path splits, a path that leaves
//! it splits it), then sorted, cut at a threshold and printed as `-g graph`, `fractal`, `flat` or
//! `folded` print it (`ui/stdio/hist.c`).
//!
//! The tree is built as perf builds it, including the order of a node's children: perf keeps them
//! in a red-black tree ordered by their first frame (the shared object, then the symbol's start
//! address, or the address when a frame has no symbol; inlined functions by name), and children
//! with equal counts print in that order. perf orders shared objects by the address of its
//! `struct dso`; here they go in the order perf creates them (the kernel first, then the mapped
//! files in the order the recording maps them), which is the order of those addresses when the
//! allocator hands them out in sequence.

use perfdata_symbolize::rbtree::RbTree;
use std::cmp::Ordering;
use std::fmt::Write;
use std::rc::Rc;

/// How `perf report -g` prints each entry's call graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphMode {
    /// `graph`: a tree, percentages of the whole event count (perf's default).
    Graph,
    /// `fractal`: a tree, each level's percentages of its parent's.
    Fractal,
    /// `flat`: each distinct path in full, with its share.
    Flat,
    /// `folded`: each distinct path on one line, frames joined by `;`.
    Folded,
}

/// Which end of the stack the graph starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainOrder {
    /// From the outermost caller down (`caller`; perf's default with `--children`).
    Caller,
    /// From the sampled function up to its callers (`callee`; perf's default without).
    Callee,
}

/// What the numbers of a call graph show (`-g …,percent|period|count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphValue {
    /// Share of the event count, `12.34%`.
    Percent,
    /// The event count.
    Period,
    /// The number of samples.
    Count,
}

/// perf report's `-g MODE,THRESHOLD,ORDER,function,VALUE`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallGraph {
    /// The layout.
    pub mode: GraphMode,
    /// Paths under this share (%) are left out: of the whole event count for `graph`, `flat` and
    /// `folded`, of the parent's for `fractal`.
    pub min_percent: f64,
    /// Caller-first or callee-first; `None`: perf's default (caller with `--children`, else callee).
    pub order: Option<ChainOrder>,
    /// The numbers shown.
    pub value: GraphValue,
}

impl Default for CallGraph {
    /// perf report's default, `graph,0.5,caller` (callee without `--children`), `percent`.
    fn default() -> Self {
        CallGraph { mode: GraphMode::Graph, min_percent: 0.5, order: None, value: GraphValue::Percent }
    }
}

impl CallGraph {
    /// perf's `-g` argument: comma-separated, in any order, a mode (`graph`, `fractal`, `flat`,
    /// `folded`, `none` for no graph), a threshold (a number), an order (`caller`, `callee`), the
    /// key `function` (the only one supported here), a value (`percent`, `period`, `count`).
    /// `Ok(None)` for `none`.
    pub fn parse(arg: &str) -> Result<Option<CallGraph>, String> {
        let mut g = CallGraph::default();
        for tok in arg.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            match tok {
                "none" => return Ok(None),
                "graph" => g.mode = GraphMode::Graph,
                "fractal" => g.mode = GraphMode::Fractal,
                "flat" => g.mode = GraphMode::Flat,
                "folded" => g.mode = GraphMode::Folded,
                "caller" => g.order = Some(ChainOrder::Caller),
                "callee" => g.order = Some(ChainOrder::Callee),
                "function" => {}
                "percent" => g.value = GraphValue::Percent,
                "period" => g.value = GraphValue::Period,
                "count" => g.value = GraphValue::Count,
                "address" | "srcline" => {
                    return Err(format!("-g key `{tok}': only `function' is supported"));
                }
                t => match t.parse::<f64>() {
                    Ok(p) if p.is_finite() && p >= 0.0 => g.min_percent = p,
                    _ => return Err(format!("unknown -g field `{t}' (graph, fractal, flat, folded, none, a threshold, caller, callee, function, percent, period, count)")),
                },
            }
        }
        Ok(Some(g))
    }
}

/// One node of an entry's call graph: a run of frames every path through it shares, with the
/// event count and samples of the paths ending in it and through it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallNode {
    /// The frames, in the graph's order, as perf names them (`name`, `name (inlined)`, or the
    /// address `0x…` when unresolved).
    pub frames: Vec<String>,
    /// Event count of the samples whose path ends here.
    pub period: u64,
    /// Event count of the samples through this node (its own and its children's).
    pub total_period: u64,
    /// Samples whose path ends here.
    pub samples: u64,
    /// Samples through this node.
    pub total_samples: u64,
    /// The paths going on, in perf's order of its tree (not sorted; [`write_call_graph`] sorts).
    pub children: Vec<CallNode>,
}

/// One callchain entry as perf's tree compares it (`match_chain`, key `function`).
#[derive(Clone, Debug)]
pub(super) struct Frame {
    /// The shared object, by creation order (0: no map).
    pub(super) dso: u32,
    /// The callchain address.
    pub(super) ip: u64,
    /// The symbol's name; `None`: unresolved.
    pub(super) name: Option<Rc<str>>,
    /// The symbol's start address.
    pub(super) start: u64,
    /// An inlined function.
    pub(super) inlined: bool,
}

impl Frame {
    /// `callchain_list__sym_name`: `name`, `name (inlined)`, else the address (`%#lx`).
    fn text(&self) -> String {
        // A kallsyms module symbol keeps its module after a NUL.
        match self.name.as_deref().map(|n| n.split('\0').next().unwrap_or(n)) {
            Some(n) if self.inlined => format!("{n} (inlined)"),
            Some(n) => n.to_string(),
            None if self.ip == 0 => "0".to_string(),
            None => format!("{:#x}", self.ip),
        }
    }
}

/// `match_chain(new, old)` for key `function`: `Less` when `old` sorts before `new` (perf's
/// MATCH_LT, which sends `new` left of `old`).
fn match_chain(old: &Frame, new: &Frame) -> Ordering {
    if let (Some(o), Some(n)) = (&old.name, &new.name) {
        if old.inlined || new.inlined {
            return o.as_bytes().cmp(n.as_bytes());
        }
        return (old.dso, old.start).cmp(&(new.dso, new.start));
    }
    (old.dso, old.ip).cmp(&(new.dso, new.ip))
}

/// perf's `struct callchain_node`.
#[derive(Default)]
struct Node {
    val: Vec<Frame>,
    hit: u64,
    children_hit: u64,
    count: u64,
    children_count: u64,
    /// `rb_root_in`: the children by their first frame.
    children: RbTree<usize>,
}

/// One entry's callchain tree (`struct callchain_root`); node 0 is the root.
pub(super) struct Tree {
    nodes: Vec<Node>,
    /// The longest path appended (perf's `max_depth`).
    max_depth: usize,
}

impl Default for Tree {
    fn default() -> Self {
        Tree { nodes: vec![Node::default()], max_depth: 0 }
    }
}

impl Tree {
    /// `callchain_append`: add `count` samples of one path (in the graph's order) and their
    /// event count (perf adds them one by one; the hits add up the same).
    pub(super) fn append(&mut self, path: &[Frame], period: u64, count: u64) {
        if !path.is_empty() {
            self.append_children(0, path, period, count);
            self.max_depth = self.max_depth.max(path.len());
        }
    }

    /// The longest path appended.
    pub(super) fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// `append_chain_children`: find the child whose first frame is `path`'s, or add one.
    fn append_children(&mut self, at: usize, path: &[Frame], period: u64, count: u64) {
        let Some(first) = path.first() else { return };
        let Some(mut kids) = self.nodes.get_mut(at).map(|n| std::mem::take(&mut n.children)) else { return };
        let next = self.nodes.len();
        let nodes = &self.nodes;
        let found = kids.insert_by(
            |&c| match nodes.get(c).and_then(|n| n.val.first()).map(|f| match_chain(f, first)) {
                Some(Ordering::Equal) | None => None,
                Some(o) => Some(o == Ordering::Less),
            },
            || next,
        );
        let child = match found {
            Err(slot) => kids.get(slot).copied(),
            Ok(_) => {
                self.nodes.push(Node { val: path.to_vec(), hit: period, count, ..Node::default() });
                None
            }
        };
        if let Some(n) = self.nodes.get_mut(at) {
            n.children = kids;
        }
        if let Some(child) = child {
            self.append_chain(child, path, period, count);
        }
        if let Some(n) = self.nodes.get_mut(at) {
            n.children_hit = n.children_hit.saturating_add(period);
            n.children_count += count;
        }
    }

    /// `append_chain` of a child whose first frame matches: the frames it shares with `path`,
    /// then a split, a hit, or the rest among its children.
    fn append_chain(&mut self, at: usize, path: &[Frame], period: u64, count: u64) {
        let Some(node) = self.nodes.get_mut(at) else { return };
        let matches =
            node.val.iter().zip(path).take_while(|(old, new)| match_chain(old, new) == Ordering::Equal).count();
        let rest = path.get(matches..).unwrap_or_default();
        if matches < node.val.len() {
            self.split(at, matches, rest, period, count);
        } else if rest.is_empty() {
            node.hit = node.hit.saturating_add(period);
            node.count += count;
        } else {
            self.append_children(at, rest, period, count);
        }
    }

    /// `split_add_child`: node `at` keeps its first `keep` frames; the rest, with its hits and
    /// children, become its first child; the rest of the path (if any) its second.
    fn split(&mut self, at: usize, keep: usize, rest: &[Frame], period: u64, count: u64) {
        let first = self.nodes.len();
        let second = first + 1;
        let Some(n) = self.nodes.get_mut(at) else { return };
        let tail = n.val.split_off(keep);
        let old = tail.first().cloned();
        let moved = Node {
            val: tail,
            hit: n.hit,
            children_hit: n.children_hit,
            count: n.count,
            children_count: n.children_count,
            children: std::mem::take(&mut n.children),
        };
        n.children_hit = moved.hit.saturating_add(moved.children_hit);
        n.children_count = moved.count + moved.children_count;
        let _ = n.children.insert_by(|_| Some(true), || first);
        let new = match (rest.first(), old) {
            (Some(new), Some(old)) => {
                n.hit = 0;
                n.count = 0;
                n.children_hit = n.children_hit.saturating_add(period);
                n.children_count += count;
                // The second child goes left of the first when the first's frame sorts before it.
                let left = match_chain(&old, new) == Ordering::Less;
                let _ = n.children.insert_by(|_| Some(left), || second);
                Some(Node { val: rest.to_vec(), hit: period, count, ..Node::default() })
            }
            _ => {
                n.hit = period;
                n.count = count;
                None
            }
        };
        self.nodes.push(moved);
        self.nodes.extend(new);
    }

    /// `callchain_merge`: add `src`'s paths, each node's hits as one path, in its tree order
    /// (the longest path appended stays this tree's).
    pub(super) fn merge(&mut self, src: &Tree) {
        let mut path = Vec::new();
        self.merge_node(src, 0, &mut path);
    }

    fn merge_node(&mut self, src: &Tree, at: usize, path: &mut Vec<Frame>) {
        let Some(n) = src.nodes.get(at) else { return };
        let len = path.len();
        path.extend(n.val.iter().cloned());
        // perf merges with `append_chain_children`, not `callchain_append`: the longest path
        // stays the destination's own (it orders rows of equal Children, [`Tree::max_depth`]).
        if n.hit > 0 && !path.is_empty() {
            self.append_children(0, path, n.hit, 1);
        }
        for &c in n.children.iter() {
            self.merge_node(src, c, path);
        }
        path.truncate(len);
    }

    /// The tree as [`CallNode`]s: the root's children, each node's children in perf's tree order.
    pub(super) fn nodes(&self) -> Vec<CallNode> {
        self.children_of(0, 0)
    }

    fn children_of(&self, at: usize, depth: usize) -> Vec<CallNode> {
        let Some(n) = self.nodes.get(at) else { return Vec::new() };
        // A path is at most a callchain long; the depth guard only bounds the recursion.
        if depth > 4096 {
            return Vec::new();
        }
        n.children
            .iter()
            .filter_map(|&c| self.nodes.get(c).map(|m| (c, m)))
            .map(|(c, m)| CallNode {
                frames: m.val.iter().map(Frame::text).collect(),
                period: m.hit,
                total_period: m.hit.saturating_add(m.children_hit),
                samples: m.count,
                total_samples: m.count + m.children_count,
                children: self.children_of(c, depth + 1),
            })
            .collect()
    }
}

/// A node's children as perf's `sort_chain_graph_*` leaves them: those with at least `min`
/// (`fractal`: that share of the node's children's count) through them, most first, ties in
/// tree order.
fn sorted(kids: &[CallNode], mode: GraphMode, min: u64, min_percent: f64, parent_children: u64) -> Vec<&CallNode> {
    let min = match mode {
        GraphMode::Fractal => (parent_children as f64 * min_percent / 100.0).ceil() as u64,
        _ => min,
    };
    let mut v: Vec<&CallNode> = kids.iter().filter(|k| k.total_period >= min).collect();
    v.sort_by_key(|k| std::cmp::Reverse(k.total_period));
    v
}

/// The value perf prints for a node (`callchain_node__fprintf_value`).
fn value(cg: &CallGraph, period: u64, samples: u64, total: u64) -> String {
    match cg.value {
        GraphValue::Period => period.to_string(),
        GraphValue::Count => samples.to_string(),
        GraphValue::Percent => {
            let p = if total > 0 { period as f64 * 100.0 / total as f64 } else { 0.0 };
            format!("{p:.2}%")
        }
    }
}

/// The margin every graph line starts with.
const MARGIN: &str = "            ";

/// Write one entry's call graph as `perf report --stdio` prints it after the entry's line.
/// `roots`: the entry's tree; `total`: the report's event count (the percentages' base, and
/// with `min_percent` the threshold of `graph`, `flat` and `folded`); `entry_period`: the entry's
/// own count (its Children count with `--children`); `skip_first`: leave out a single path's
/// first frame, which is the entry's symbol (perf does when `--sort` starts with `sym`).
pub fn write_call_graph(
    o: &mut String,
    roots: &[CallNode],
    cg: &CallGraph,
    total: u64,
    threshold_base: u64,
    entry_period: u64,
    skip_first: bool,
) {
    let min = (threshold_base as f64 * (cg.min_percent / 100.0)) as u64;
    match cg.mode {
        GraphMode::Graph | GraphMode::Fractal => graph(o, roots, cg, min, total, entry_period, skip_first),
        GraphMode::Flat | GraphMode::Folded => {
            let mut paths = Vec::new();
            flat_nodes(roots, &mut Vec::new(), min, &mut paths);
            paths.sort_by_key(|p| std::cmp::Reverse(p.0));
            for (period, node, frames) in paths {
                // flat shows what went through the node, folded what ended in it.
                let v = if cg.mode == GraphMode::Flat {
                    value(cg, node.total_period, node.total_samples, total)
                } else {
                    value(cg, period, node.samples, total)
                };
                if cg.mode == GraphMode::Flat {
                    let _ = writeln!(o, "           {v}");
                    for f in &frames {
                        let _ = writeln!(o, "                {f}");
                    }
                    o.push('\n');
                } else {
                    let _ = writeln!(o, "{v} {}", frames.join(";"));
                }
            }
        }
    }
}

/// `__sort_chain_flat`: the nodes with samples ending in them (at least `min`), children before
/// their parent, each with its whole path.
fn flat_nodes<'a>(
    kids: &'a [CallNode],
    path: &mut Vec<&'a str>,
    min: u64,
    out: &mut Vec<(u64, &'a CallNode, Vec<String>)>,
) {
    for k in kids {
        let len = path.len();
        // perf leaves the callchain's context markers out here (`ip >= PERF_CONTEXT_MAX`).
        path.extend(k.frames.iter().map(String::as_str).filter(|f| !is_context(f)));
        flat_nodes(&k.children, path, min, out);
        if k.period > 0 && k.period >= min {
            out.push((k.period, k, path.iter().map(|s| s.to_string()).collect()));
        }
        path.truncate(len);
    }
}

/// Whether an unresolved frame's text is a callchain context marker (`PERF_CONTEXT_MAX`, -4095,
/// and above).
fn is_context(frame: &str) -> bool {
    frame.strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok()).is_some_and(|ip| ip >= (-4095i64) as u64)
}

/// `callchain__fprintf_graph`.
fn graph(
    o: &mut String,
    roots: &[CallNode],
    cg: &CallGraph,
    min: u64,
    total: u64,
    entry_period: u64,
    skip_first: bool,
) {
    let before = o.len();
    let top_children: u64 = roots.iter().map(|r| r.total_period).sum();
    let mut level = sorted(roots, cg.mode, min, cg.min_percent, top_children);
    let mut margin = 0usize;
    // A single path as wide as the entry: its frames after `---`, no percentage.
    if let [only] = level[..] {
        if only.total_period == entry_period {
            let mut printed = false;
            for (i, f) in only.frames.iter().enumerate() {
                if i == 0 && skip_first {
                    continue;
                }
                if printed {
                    let _ = writeln!(o, "{MARGIN}{:margin$}{f}", "");
                } else {
                    let _ = writeln!(o, "{MARGIN}|\n{MARGIN}---{f}");
                    margin = 3;
                    printed = true;
                }
            }
            level = sorted(&only.children, cg.mode, min, cg.min_percent, only.total_period.saturating_sub(only.period));
        }
    }
    let base = if cg.mode == GraphMode::Fractal { entry_period } else { total };
    subtree(o, &level, cg, min, base, 1, 1, margin);
    if o.len() > before {
        o.push('\n');
    }
}

/// `__callchain__fprintf_graph`: the branches below one node, `depth` levels in, `mask` the
/// levels whose `|` goes on. perf keeps the mask in an `int` and shifts by the level, which on
/// x86-64 takes the level modulo 32: below 32 branch levels its bars repeat those of the levels
/// 32 above, and so do ours ([`bit`]). perf recurses; this walks with a stack of its own, as deep
/// as the deepest callchain.
#[allow(clippy::too_many_arguments)]
fn subtree(
    o: &mut String,
    level: &[&CallNode],
    cg: &CallGraph,
    min: u64,
    total: u64,
    depth: usize,
    mask: u32,
    margin: usize,
) {
    /// One level's walk: its branches, the next to print, and what perf's recursion keeps.
    struct Walk<'n> {
        level: Vec<&'n CallNode>,
        next: usize,
        total: u64,
        remaining: u64,
        depth: usize,
        mask: u32,
        new_mask: u32,
    }
    let walk =
        |level, total, depth, mask| Walk { level, next: 0, total, remaining: total, depth, mask, new_mask: mask };
    let mut stack = vec![walk(level.to_vec(), total, depth, mask)];
    while let Some(w) = stack.last_mut() {
        let depth = w.depth;
        let Some(&child) = w.level.get(w.next) else {
            if cg.mode == GraphMode::Fractal && w.remaining != 0 && w.remaining != w.total {
                w.new_mask &= !bit(depth.saturating_sub(1));
                let mut line = format!("{MARGIN}{:margin$}", "");
                for i in 0..depth {
                    line.push(if w.new_mask & bit(i) != 0 { '|' } else { ' ' });
                    if i == depth - 1 {
                        let _ = write!(line, "--{}--", value(cg, w.remaining, 0, w.total));
                    } else {
                        line.push_str("          ");
                    }
                }
                let _ = writeln!(o, "{line}[...]");
            }
            stack.pop();
            continue;
        };
        w.next += 1;
        w.remaining = w.remaining.wrapping_sub(child.total_period);
        let last = w.next == w.level.len();
        if last && (cg.mode != GraphMode::Fractal || w.remaining == 0) {
            w.new_mask &= !bit(depth.saturating_sub(1));
        }
        // The separator line keeps the old mask.
        let mut line = format!("{MARGIN}{:margin$}", "");
        for i in 0..depth {
            line.push_str(if w.mask & bit(i) != 0 { "|          " } else { "           " });
        }
        let _ = writeln!(o, "{line}");
        for (j, f) in child.frames.iter().enumerate() {
            let mut line = format!("{MARGIN}{:margin$}", "");
            for i in 0..depth {
                line.push(if w.new_mask & bit(i) != 0 { '|' } else { ' ' });
                if j == 0 && i == depth - 1 {
                    let _ = write!(line, "--{}--", value(cg, child.total_period, child.total_samples, w.total));
                } else {
                    line.push_str("          ");
                }
            }
            let _ = writeln!(o, "{line}{f}");
        }
        let new_total =
            if cg.mode == GraphMode::Fractal { child.total_period.saturating_sub(child.period) } else { w.total };
        let next =
            sorted(&child.children, cg.mode, min, cg.min_percent, child.total_period.saturating_sub(child.period));
        let mask = w.new_mask | bit(depth);
        stack.push(walk(next, new_total, depth + 1, mask));
    }
}

/// perf's `1 << i` on an `int`: x86-64 shifts a 32-bit value by the count modulo 32.
fn bit(i: usize) -> u32 {
    1u32.wrapping_shl((i % 32) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(ips: &[u64]) -> Vec<Frame> {
        ips.iter().map(|&ip| Frame { dso: 1, ip, name: None, start: 0, inlined: false }).collect()
    }

    /// perf's `callchain_merge` adds the paths with `append_chain_children`: the merged tree's
    /// longest path is still the longest it appended itself.
    #[test]
    fn merge_keeps_the_longest_own_path() {
        let mut dst = Tree::default();
        dst.append(&path(&[1, 2]), 10, 1);
        let mut src = Tree::default();
        src.append(&path(&[1, 2, 3, 4, 5]), 30, 3);
        assert_eq!(src.max_depth(), 5);
        dst.merge(&src);
        assert_eq!(dst.max_depth(), 2);
        dst.append(&path(&[7, 8, 9]), 1, 1);
        assert_eq!(dst.max_depth(), 3);
    }
}
