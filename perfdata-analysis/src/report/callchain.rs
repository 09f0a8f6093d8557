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
use std::collections::HashMap;
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

/// A frame's number in its report's [`Frames`].
pub(super) type FrameId = u32;

/// The distinct frames of one report's call graphs; the trees hold their numbers.
///
/// Each frame also has a class key: [`match_chain`] compares two named frames that are not
/// inlined by (object, start), two inlined ones (or an inlined and a named one) by name, and any
/// other pair by (object, address). Within one of the classes "named", "unnamed" and "inlined"
/// that is a total order, and two frames of a class are equal exactly when their keys are: the
/// key is the class's value (object and start, object and address, or the name) numbered in the
/// order it is first met, with the class in its upper half.
#[derive(Default)]
pub(super) struct Frames {
    /// The frames, by number.
    frames: Vec<Frame>,
    /// Each frame's class key.
    keys: Vec<u64>,
    /// Each frame's text ([`Frame::text`]), made once: the trees show a frame in many nodes.
    texts: Vec<Box<str>>,
    /// The frames by their fields (the name by the address of its `Rc`, which `frames` keeps).
    by_frame: HashMap<(u32, u64, usize, u64, bool), FrameId, ahash::RandomState>,
    /// The class keys of named and unnamed frames by (unnamed, object, start or address).
    by_place: HashMap<(bool, u32, u64), u64, ahash::RandomState>,
    /// The class keys of inlined frames by name.
    by_name: HashMap<Rc<str>, u64, ahash::RandomState>,
}

/// The class part of a [`Frames`] key: a named frame, not inlined.
const NAMED: u64 = 0;
/// The class part of a [`Frames`] key: an unresolved frame.
const UNNAMED: u64 = 1 << 32;
/// The class part of a [`Frames`] key: an inlined function.
const INLINED: u64 = 2 << 32;

impl Frames {
    /// `frame`'s number, the same for every equal frame (more than `u32::MAX` frames, which no
    /// memory holds, would share the last number).
    pub(super) fn id(&mut self, frame: Frame) -> FrameId {
        let name = frame.name.as_ref().map_or(0, |n| Rc::as_ptr(n).cast::<u8>() as usize);
        let fields = (frame.dso, frame.ip, name, frame.start, frame.inlined);
        if let Some(&id) = self.by_frame.get(&fields) {
            return id;
        }
        let id = FrameId::try_from(self.frames.len()).unwrap_or(FrameId::MAX);
        let next = self.by_place.len() as u64 + self.by_name.len() as u64;
        let key = match &frame.name {
            Some(n) if frame.inlined => INLINED | *self.by_name.entry(n.clone()).or_insert(next),
            Some(_) => NAMED | *self.by_place.entry((false, frame.dso, frame.start)).or_insert(next),
            None => UNNAMED | *self.by_place.entry((true, frame.dso, frame.ip)).or_insert(next),
        };
        self.texts.push(frame.text().into());
        self.frames.push(frame);
        self.keys.push(key);
        self.by_frame.insert(fields, id);
        id
    }

    /// Frame number `id`.
    fn get(&self, id: FrameId) -> Option<&Frame> {
        self.frames.get(id as usize)
    }

    /// `match_chain(old, new) == Equal`: by the class keys when both frames are of one class.
    fn same(&self, old: FrameId, new: FrameId) -> bool {
        if old == new {
            return true;
        }
        match (self.keys.get(old as usize), self.keys.get(new as usize)) {
            (Some(&o), Some(&n)) if o >> 32 == n >> 32 => o == n,
            _ => self.cmp(old, new) == Ordering::Equal,
        }
    }

    /// `match_chain(old, new)`; a number no frame has sorts last.
    fn cmp(&self, old: FrameId, new: FrameId) -> Ordering {
        match (self.get(old), self.get(new)) {
            (Some(o), Some(n)) => match_chain(o, n),
            (o, n) => n.is_some().cmp(&o.is_some()),
        }
    }

    /// `id`'s class key.
    fn key(&self, id: FrameId) -> Option<u64> {
        self.keys.get(id as usize).copied()
    }

    /// A frame's text (see [`Frame::text`]).
    fn text(&self, id: FrameId) -> String {
        self.texts.get(id as usize).map(|t| t.to_string()).unwrap_or_default()
    }
}

/// perf's `struct callchain_node`.
#[derive(Default)]
struct Node {
    /// The frames: `Tree::frames[at..at + len]`.
    at: usize,
    len: usize,
    hit: u64,
    children_hit: u64,
    count: u64,
    children_count: u64,
    /// `rb_root_in`: the children by their first frame.
    children: RbTree<usize>,
    /// The children's number in [`Tree::index`] (a split node's children move to its first
    /// child, with their number).
    set: usize,
    /// The class of the children's first frames (the upper half of a [`Frames`] key), when they
    /// are all of one: `MIXED` when not, `None` without children.
    class: Option<u64>,
}

/// [`Node::class`] of children of more than one class.
const MIXED: u64 = u64::MAX;

/// One entry's callchain tree (`struct callchain_root`); node 0 is the root.
pub(super) struct Tree {
    nodes: Vec<Node>,
    /// The children of the nodes whose children are all of one class, by (their number, the
    /// class key of their first frame). Within a class [`match_chain`] is a total order of
    /// which the children's red-black tree is a search tree, so the child found here is the one
    /// its descent finds, and one not found here it does not find either.
    index: HashMap<(usize, u64), usize, ahash::RandomState>,
    /// The next children's number.
    sets: usize,
    /// The nodes' frames, each node's a run of them (a split node's two parts share its run).
    frames: Vec<FrameId>,
    /// The longest path appended (perf's `max_depth`).
    max_depth: usize,
}

impl Default for Tree {
    fn default() -> Self {
        Tree { nodes: vec![Node::default()], index: HashMap::default(), sets: 1, frames: Vec::new(), max_depth: 0 }
    }
}

impl Tree {
    /// `callchain_append`: add `count` samples of one path (in the graph's order, frames of
    /// `table`) and their event count (perf adds them one by one; the hits add up the same).
    pub(super) fn append(&mut self, table: &Frames, path: &[FrameId], period: u64, count: u64) {
        if !path.is_empty() {
            self.append_children(table, 0, path, period, count);
            self.max_depth = self.max_depth.max(path.len());
        }
    }

    /// The longest path appended.
    pub(super) fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// Node `n`'s frames.
    fn val(&self, n: &Node) -> &[FrameId] {
        self.frames.get(n.at..n.at.saturating_add(n.len)).unwrap_or_default()
    }

    /// A new node of `path`'s frames with `count` samples ending in it.
    fn leaf(&mut self, path: &[FrameId], period: u64, count: u64) -> Node {
        let at = self.frames.len();
        self.frames.extend_from_slice(path);
        Node { at, len: path.len(), hit: period, count, set: self.new_set(), ..Node::default() }
    }

    /// A number for a node's children.
    fn new_set(&mut self) -> usize {
        self.sets += 1;
        self.sets
    }

    /// Node `at`'s child whose first frame is `first` (of class key `key`), if its children are
    /// all of `key`'s class: `Some(None)` when it has no such child.
    fn indexed(&self, at: usize, key: u64) -> Option<Option<usize>> {
        let n = self.nodes.get(at)?;
        (n.class == Some(key >> 32)).then(|| self.index.get(&(n.set, key)).copied())
    }

    /// Note `child` (its first frame of class key `key`) as node `at`'s new child.
    fn indexing(&mut self, at: usize, child: usize, key: Option<u64>) {
        let Some(n) = self.nodes.get_mut(at) else { return };
        let class = key.map_or(MIXED, |k| k >> 32);
        n.class = match n.class {
            None => Some(class),
            Some(c) if c == class => Some(c),
            Some(_) => Some(MIXED),
        };
        if let (Some(_), Some(k)) = (n.class.filter(|&c| c != MIXED), key) {
            self.index.insert((n.set, k), child);
        }
    }

    /// `append_chain_children`: find the child whose first frame is `path`'s, or add one.
    fn append_children(&mut self, table: &Frames, at: usize, path: &[FrameId], period: u64, count: u64) {
        let Some(&first) = path.first() else { return };
        let key = table.key(first);
        if let Some(Some(child)) = key.and_then(|k| self.indexed(at, k)) {
            self.append_chain(table, child, path, period, count);
            if let Some(n) = self.nodes.get_mut(at) {
                n.children_hit = n.children_hit.saturating_add(period);
                n.children_count += count;
            }
            return;
        }
        let Some(mut kids) = self.nodes.get_mut(at).map(|n| std::mem::take(&mut n.children)) else { return };
        let next = self.nodes.len();
        let found = kids.insert_by(
            |&c| match self.nodes.get(c).and_then(|n| self.val(n).first()).map(|&f| table.cmp(f, first)) {
                Some(Ordering::Equal) | None => None,
                Some(o) => Some(o == Ordering::Less),
            },
            || next,
        );
        let child = match found {
            Err(slot) => kids.get(slot).copied(),
            Ok(_) => {
                let leaf = self.leaf(path, period, count);
                self.nodes.push(leaf);
                None
            }
        };
        if let Some(n) = self.nodes.get_mut(at) {
            n.children = kids;
        }
        if child.is_none() {
            self.indexing(at, next, key);
        }
        if let Some(child) = child {
            self.append_chain(table, child, path, period, count);
        }
        if let Some(n) = self.nodes.get_mut(at) {
            n.children_hit = n.children_hit.saturating_add(period);
            n.children_count += count;
        }
    }

    /// `append_chain` of a child whose first frame matches: the frames it shares with `path`,
    /// then a split, a hit, or the rest among its children.
    fn append_chain(&mut self, table: &Frames, at: usize, path: &[FrameId], period: u64, count: u64) {
        let Some(node) = self.nodes.get(at) else { return };
        let len = node.len;
        let matches = self.val(node).iter().zip(path).take_while(|&(&old, &new)| table.same(old, new)).count();
        let rest = path.get(matches..).unwrap_or_default();
        if matches < len {
            self.split(table, at, matches, rest, period, count);
        } else if rest.is_empty() {
            if let Some(node) = self.nodes.get_mut(at) {
                node.hit = node.hit.saturating_add(period);
                node.count += count;
            }
        } else {
            self.append_children(table, at, rest, period, count);
        }
    }

    /// `split_add_child`: node `at` keeps its first `keep` frames; the rest, with its hits and
    /// children, become its first child; the rest of the path (if any) its second.
    fn split(&mut self, table: &Frames, at: usize, keep: usize, rest: &[FrameId], period: u64, count: u64) {
        let first = self.nodes.len();
        let second = first + 1;
        let new = rest.first().map(|_| self.leaf(rest, period, count));
        let Some(n) = self.nodes.get_mut(at) else { return };
        let moved = Node {
            at: n.at.saturating_add(keep),
            len: n.len.saturating_sub(keep),
            hit: n.hit,
            children_hit: n.children_hit,
            count: n.count,
            children_count: n.children_count,
            children: std::mem::take(&mut n.children),
            set: n.set,
            class: n.class.take(),
        };
        n.len = keep;
        n.children_hit = moved.hit.saturating_add(moved.children_hit);
        n.children_count = moved.count + moved.children_count;
        let _ = n.children.insert_by(|_| Some(true), || first);
        let old = self.frames.get(moved.at).copied();
        let set = self.new_set();
        let Some(n) = self.nodes.get_mut(at) else { return };
        n.set = set;
        let new = match (rest.first(), old, new) {
            (Some(&new_first), Some(old), Some(new)) => {
                n.hit = 0;
                n.count = 0;
                n.children_hit = n.children_hit.saturating_add(period);
                n.children_count += count;
                // The second child goes left of the first when the first's frame sorts before it.
                let left = table.cmp(old, new_first) == Ordering::Less;
                let _ = n.children.insert_by(|_| Some(left), || second);
                Some(new)
            }
            _ => {
                n.hit = period;
                n.count = count;
                None
            }
        };
        let second_key = new.as_ref().and(rest.first()).and_then(|&f| table.key(f));
        let second_made = new.is_some();
        self.nodes.push(moved);
        self.nodes.extend(new);
        self.indexing(at, first, old.and_then(|f| table.key(f)));
        if second_made {
            self.indexing(at, second, second_key);
        }
    }

    /// `callchain_merge`: add `src`'s paths, each node's hits as one path, in its tree order
    /// (the longest path appended stays this tree's). Both trees' frames are `table`'s.
    pub(super) fn merge(&mut self, table: &Frames, src: &Tree) {
        let mut path = Vec::new();
        self.merge_node(table, src, 0, &mut path);
    }

    fn merge_node(&mut self, table: &Frames, src: &Tree, at: usize, path: &mut Vec<FrameId>) {
        let Some(n) = src.nodes.get(at) else { return };
        let len = path.len();
        path.extend_from_slice(src.val(n));
        // perf merges with `append_chain_children`, not `callchain_append`: the longest path
        // stays the destination's own (it orders rows of equal Children, [`Tree::max_depth`]).
        if n.hit > 0 && !path.is_empty() {
            self.append_children(table, 0, path, n.hit, 1);
        }
        for &c in n.children.iter() {
            self.merge_node(table, src, c, path);
        }
        path.truncate(len);
    }

    /// The tree as [`CallNode`]s (frames of `table`): the root's children, each node's children in
    /// perf's tree order.
    pub(super) fn nodes(&self, table: &Frames) -> Vec<CallNode> {
        self.children_of(table, 0, 0)
    }

    fn children_of(&self, table: &Frames, at: usize, depth: usize) -> Vec<CallNode> {
        let Some(n) = self.nodes.get(at) else { return Vec::new() };
        // A path is at most a callchain long; the depth guard only bounds the recursion.
        if depth > 4096 {
            return Vec::new();
        }
        n.children
            .iter()
            .filter_map(|&c| self.nodes.get(c).map(|m| (c, m)))
            .map(|(c, m)| CallNode {
                frames: self.val(m).iter().map(|&f| table.text(f)).collect(),
                period: m.hit,
                total_period: m.hit.saturating_add(m.children_hit),
                samples: m.count,
                total_samples: m.count + m.children_count,
                children: self.children_of(table, c, depth + 1),
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

    fn path(table: &mut Frames, ips: &[u64]) -> Vec<FrameId> {
        ips.iter().map(|&ip| table.id(Frame { dso: 1, ip, name: None, start: 0, inlined: false })).collect()
    }

    /// perf's `callchain_merge` adds the paths with `append_chain_children`: the merged tree's
    /// longest path is still the longest it appended itself.
    #[test]
    fn merge_keeps_the_longest_own_path() {
        let t = &mut Frames::default();
        let (short, long, other) = (path(t, &[1, 2]), path(t, &[1, 2, 3, 4, 5]), path(t, &[7, 8, 9]));
        let mut dst = Tree::default();
        dst.append(t, &short, 10, 1);
        let mut src = Tree::default();
        src.append(t, &long, 30, 3);
        assert_eq!(src.max_depth(), 5);
        dst.merge(t, &src);
        assert_eq!(dst.max_depth(), 2);
        dst.append(t, &other, 1, 1);
        assert_eq!(dst.max_depth(), 3);
    }
}
