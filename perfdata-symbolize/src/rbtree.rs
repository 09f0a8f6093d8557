//! A Linux rbtree (lib/rbtree.c) emulated node for node, and perf's symbol tree on it.
//!
//! perf keeps its tables in red-black trees searched with comparators that are not always a
//! total order: a kernel module's symbols can overlap (perf 6.1 puts those of its `.ko` and of
//! kallsyms into one `dso->symbols` tree), so do a binary's (a size-0 `_init` extended over
//! `.plt`, which holds the `NAME@plt` symbols inserted after; size-0 labels inside a function,
//! extended to the next symbol), and `perf report`'s histogram compares inlined
//! functions by name but other symbols by address. Then what a search finds, and whether an equal
//! entry is found at all, depends on the tree's shape. [`RbTree`] gives the shape perf's gets:
//! insertion and erasure follow `__rb_insert` and `____rb_erase_color` (the textbook red-black
//! algorithms with the successor taking an erased node's place), the descent is the caller's.

use super::Sym;

const NIL: usize = usize::MAX;

#[derive(Clone, Debug)]
struct Node<T> {
    value: T,
    left: usize,
    right: usize,
    parent: usize,
    red: bool,
}

/// A red-black tree shaped as a Linux `rb_root` given the same descents: values are placed where
/// the caller's comparisons lead (see [`RbTree::insert_by`]), not by an `Ord` of their own.
#[derive(Clone, Debug)]
pub struct RbTree<T> {
    nodes: Vec<Node<T>>,
    root: usize,
    /// Nodes in the tree (erased ones keep their slots, like freed memory never read again).
    len: usize,
}

impl<T> Default for RbTree<T> {
    fn default() -> Self {
        RbTree { nodes: Vec::new(), root: NIL, len: 0 }
    }
}

impl<T> RbTree<T> {
    fn node(&self, i: usize) -> Option<&Node<T>> {
        self.nodes.get(i)
    }

    fn left(&self, i: usize) -> usize {
        self.node(i).map_or(NIL, |n| n.left)
    }

    fn right(&self, i: usize) -> usize {
        self.node(i).map_or(NIL, |n| n.right)
    }

    fn parent(&self, i: usize) -> usize {
        self.node(i).map_or(NIL, |n| n.parent)
    }

    fn is_red(&self, i: usize) -> bool {
        self.node(i).is_some_and(|n| n.red)
    }

    fn set(&mut self, i: usize, f: impl FnOnce(&mut Node<T>)) {
        if let Some(n) = self.nodes.get_mut(i) {
            f(n);
        }
    }

    /// Number of values in the tree.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the tree holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value of node `i` (an index [`RbTree::insert_by`] returned).
    pub fn get(&self, i: usize) -> Option<&T> {
        self.node(i).map(|n| &n.value)
    }

    /// The value of node `i`, to update (not what orders it: the tree is not re-sorted).
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.nodes.get_mut(i).map(|n| &mut n.value)
    }

    /// Descend from the root as `dir` says for each node's value (`Some(true)`: left,
    /// `Some(false)`: right, `None`: this one). Returns `Err(node)` for the node the descent
    /// stopped at, else links `make()` as a new node where it ended, rebalances as
    /// `rb_insert_color` does and returns `Ok(new node)`.
    pub fn insert_by(
        &mut self,
        mut dir: impl FnMut(&T) -> Option<bool>,
        make: impl FnOnce() -> T,
    ) -> Result<usize, usize> {
        let (mut parent, mut link_left) = (NIL, false);
        let mut p = self.root;
        while let Some(n) = self.node(p) {
            parent = p;
            match dir(&n.value) {
                None => return Err(p),
                Some(left) => {
                    link_left = left;
                    p = if left { n.left } else { n.right };
                }
            }
        }
        let i = self.nodes.len();
        self.nodes.push(Node { value: make(), left: NIL, right: NIL, parent, red: true });
        self.len += 1;
        if parent == NIL {
            self.root = i;
        } else if link_left {
            self.set(parent, |n| n.left = i);
        } else {
            self.set(parent, |n| n.right = i);
        }
        self.insert_fixup(i);
        Ok(i)
    }

    /// Descend from the root as `dir` says (as in [`RbTree::insert_by`]) to the node it stops
    /// at, if any.
    pub fn find_by(&self, dir: impl FnMut(&T) -> Option<bool>) -> Option<&T> {
        self.find_index_by(dir).and_then(|i| self.get(i))
    }

    /// [`RbTree::find_by`]'s node, as the index [`RbTree::get`] takes.
    pub fn find_index_by(&self, mut dir: impl FnMut(&T) -> Option<bool>) -> Option<usize> {
        let mut p = self.root;
        while let Some(n) = self.node(p) {
            match dir(&n.value) {
                None => return Some(p),
                Some(true) => p = n.left,
                Some(false) => p = n.right,
            }
        }
        None
    }
    /// Replace `old` by `new` in `parent`'s child link (or as the root).
    fn change_child(&mut self, old: usize, new: usize, parent: usize) {
        if parent == NIL {
            self.root = new;
        } else if self.left(parent) == old {
            self.set(parent, |n| n.left = new);
        } else {
            self.set(parent, |n| n.right = new);
        }
    }

    /// The left (`left`) or right child of `i`.
    fn child(&self, i: usize, left: bool) -> usize {
        if left {
            self.left(i)
        } else {
            self.right(i)
        }
    }

    fn set_child(&mut self, i: usize, left: bool, c: usize) {
        self.set(i, |n| if left { n.left = c } else { n.right = c });
    }

    /// A left rotation at `x` (`left`), or a right one: the child on the other side takes its
    /// place.
    fn rotate(&mut self, x: usize, left: bool) {
        let y = self.child(x, !left);
        let inner = self.child(y, left);
        self.set_child(x, !left, inner);
        self.set(inner, |n| n.parent = x);
        let xp = self.parent(x);
        self.set(y, |n| n.parent = xp);
        self.change_child(x, y, xp);
        self.set_child(y, left, x);
        self.set(x, |n| n.parent = y);
    }

    fn set_red(&mut self, i: usize, red: bool) {
        self.set(i, |n| n.red = red);
    }

    /// `__rb_insert`'s rebalancing; `left` below says on which side of its parent a node hangs
    /// (the cases are mirror images).
    fn insert_fixup(&mut self, mut z: usize) {
        loop {
            let p = self.parent(z);
            if p == NIL {
                self.set_red(z, false);
                return;
            }
            if !self.is_red(p) {
                return;
            }
            let g = self.parent(p);
            let left = p == self.left(g);
            let uncle = self.child(g, !left);
            if self.is_red(uncle) {
                self.set_red(uncle, false);
                self.set_red(p, false);
                self.set_red(g, true);
                z = g;
                continue;
            }
            let mut p = p;
            if z == self.child(p, !left) {
                self.rotate(p, left);
                p = z;
            }
            self.set_red(p, false);
            self.set_red(g, true);
            self.rotate(g, !left);
            return;
        }
    }

    /// `rb_erase`: a node with two children is replaced by its successor.
    pub(crate) fn erase(&mut self, z: usize) {
        let (zl, zr) = (self.left(z), self.right(z));
        // x: the node moving into the removed position; xp: its parent afterwards.
        let (x, xp, removed_red);
        if zl == NIL || zr == NIL {
            x = if zl == NIL { zr } else { zl };
            xp = self.parent(z);
            removed_red = self.is_red(z);
            self.change_child(z, x, xp);
            self.set(x, |n| n.parent = xp);
        } else {
            let mut y = zr;
            while self.left(y) != NIL {
                y = self.left(y);
            }
            removed_red = self.is_red(y);
            x = self.right(y);
            if self.parent(y) == z {
                xp = y;
            } else {
                xp = self.parent(y);
                self.change_child(y, x, xp);
                self.set(x, |n| n.parent = xp);
                self.set(y, |n| n.right = zr);
                self.set(zr, |n| n.parent = y);
            }
            let zp = self.parent(z);
            self.change_child(z, y, zp);
            self.set(y, |n| n.parent = zp);
            self.set(y, |n| n.left = zl);
            self.set(zl, |n| n.parent = y);
            let zred = self.is_red(z);
            self.set_red(y, zred);
        }
        self.set(z, |n| {
            n.left = NIL;
            n.right = NIL;
            n.parent = NIL;
        });
        self.len = self.len.saturating_sub(1);
        if !removed_red {
            self.erase_fixup(x, xp);
        }
    }

    /// `____rb_erase_color`: `x` (possibly empty) under `xp` is a black node short.
    fn erase_fixup(&mut self, mut x: usize, mut xp: usize) {
        while x != self.root && !self.is_red(x) && xp != NIL {
            let left = x == self.left(xp);
            let mut w = self.child(xp, !left);
            if self.is_red(w) {
                self.set_red(w, false);
                self.set_red(xp, true);
                self.rotate(xp, left);
                w = self.child(xp, !left);
            }
            if !self.is_red(self.left(w)) && !self.is_red(self.right(w)) {
                self.set_red(w, true);
                x = xp;
                xp = self.parent(x);
                continue;
            }
            if !self.is_red(self.child(w, !left)) {
                let near = self.child(w, left);
                self.set_red(near, false);
                self.set_red(w, true);
                self.rotate(w, !left);
                w = self.child(xp, !left);
            }
            let parent_red = self.is_red(xp);
            self.set_red(w, parent_red);
            self.set_red(xp, false);
            let far = self.child(w, !left);
            self.set_red(far, false);
            self.rotate(xp, left);
            x = self.root;
            xp = NIL;
        }
        self.set_red(x, false);
    }

    /// `rb_first`: the leftmost node.
    fn first(&self) -> usize {
        let mut p = self.root;
        while self.left(p) != NIL {
            p = self.left(p);
        }
        p
    }

    /// `rb_next`: the node after `i` in tree order.
    fn next(&self, i: usize) -> usize {
        if self.right(i) != NIL {
            let mut p = self.right(i);
            while self.left(p) != NIL {
                p = self.left(p);
            }
            return p;
        }
        let (mut c, mut p) = (i, self.parent(i));
        while p != NIL && c == self.right(p) {
            c = p;
            p = self.parent(p);
        }
        p
    }

    /// The node indexes in tree order (`rb_first`, then `rb_next`).
    pub fn in_order(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.len);
        let mut i = self.first();
        while i != NIL && out.len() < self.len {
            out.push(i);
            i = self.next(i);
        }
        out
    }

    /// The values in tree order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.in_order().into_iter().filter_map(|i| self.get(i))
    }
}

/// perf's symbol tree of a dso (`dso->symbols`), keyed by start address.
#[derive(Clone, Debug, Default)]
pub struct SymTree(RbTree<Sym>);

impl SymTree {
    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True without symbols.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// perf's `symbols__insert`: descend left when `start` is below a node's, else right.
    pub fn insert(&mut self, sym: Sym) {
        let start = sym.start;
        let _ = self.0.insert_by(|n| Some(start < n.start), || sym);
    }

    /// The symbols in tree order.
    pub fn iter(&self) -> impl Iterator<Item = &Sym> + '_ {
        self.0.iter()
    }
    /// perf's `symbols__fixup_end` (not for kallsyms): a size-0 symbol ends where the next one
    /// starts; the last one a page after its start rounded up to a page.
    pub fn fixup_end(&mut self) {
        let t = &mut self.0;
        let order = t.in_order();
        for w in order.windows(2) {
            if let [a, b] = *w {
                let next = t.get(b).map_or(0, |s| s.start);
                if let Some(s) = t.get_mut(a).filter(|s| s.end == s.start) {
                    s.end = next;
                }
            }
        }
        if let Some(&last) = order.last() {
            if let Some(s) = t.get_mut(last).filter(|s| s.end == s.start) {
                s.end = super::roundup_page(s.start).saturating_add(4096);
            }
        }
    }

    /// perf's `symbols__fixup_duplicate`: of neighbours with one start, the worse one goes
    /// (`choose_best_symbol`).
    pub fn fixup_duplicate(&mut self) {
        self.fixup_duplicate_as(super::Stored::AsIs);
    }

    /// [`SymTree::fixup_duplicate`], comparing names as perf stored them (`stored`).
    pub(crate) fn fixup_duplicate_as(&mut self, stored: super::Stored) {
        let t = &mut self.0;
        let mut curr = t.first();
        while curr != NIL {
            let next = t.next(curr);
            let (Some(c), Some(n)) = (t.get(curr), t.get(next)) else { break };
            if c.start != n.start {
                curr = next;
                continue;
            }
            if super::better(c, n, stored) {
                t.erase(next);
            } else {
                t.erase(curr);
                curr = next;
            }
        }
    }

    /// perf's `symbols__find`: a binary descent that may miss a symbol overlapping another.
    pub fn find(&self, addr: u64) -> Option<&Sym> {
        self.0.find_by(|s| {
            if addr < s.start {
                Some(true)
            } else if addr >= s.end {
                Some(false)
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Binding;

    fn sym(start: u64, end: u64, name: &str) -> Sym {
        Sym { start, end, name: name.into(), binding: Binding::Global }
    }

    /// Red-black invariants: no red node with a red child, the same black height on every path;
    /// parent links consistent; tree order sorted by start.
    fn check(s: &SymTree) {
        let t = &s.0;
        fn black_height(t: &RbTree<Sym>, i: usize) -> usize {
            if i == NIL {
                return 1;
            }
            let (l, r) = (t.left(i), t.right(i));
            for c in [l, r] {
                if c != NIL {
                    assert_eq!(t.parent(c), i);
                    assert!(!(t.is_red(i) && t.is_red(c)), "red-red");
                }
            }
            let (hl, hr) = (black_height(t, l), black_height(t, r));
            assert_eq!(hl, hr);
            hl + usize::from(!t.is_red(i))
        }
        assert!(!t.is_red(t.root));
        black_height(t, t.root);
        let starts: Vec<u64> = s.iter().map(|s| s.start).collect();
        assert!(starts.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(starts.len(), s.len());
    }

    #[test]
    fn inserts_and_erases_keep_the_invariants() {
        let mut t = SymTree::default();
        let mut x = 12345u64;
        for i in 0..300 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let s = (x >> 40) % 64;
            t.insert(sym(s, s + 1 + (i % 3), &format!("s{i}")));
            check(&t);
        }
        t.fixup_duplicate();
        check(&t);
        let starts: Vec<u64> = t.iter().map(|s| s.start).collect();
        assert!(starts.windows(2).all(|w| w[0] < w[1]), "one symbol per start");
    }

    /// Ascending inserts a, b, c rotate b to the root; `wide` goes below a. A lookup inside
    /// `wide` but past c descends right from b and misses it, as perf's does.
    #[test]
    fn lookup_follows_the_tree_shape() {
        let mut t = SymTree::default();
        t.insert(sym(0x100, 0x200, "a"));
        t.insert(sym(0x200, 0x300, "b"));
        t.insert(sym(0x300, 0x310, "c"));
        t.insert(sym(0x0, 0x1000, "wide"));
        check(&t);
        // b: inside.
        assert_eq!(t.find(0x250).map(|s| s.name.as_str()), Some("b"));
        // b → a → wide.
        assert_eq!(t.find(0x50).map(|s| s.name.as_str()), Some("wide"));
        // b → c → nothing, although wide holds 0x400.
        assert_eq!(t.find(0x400), None);
    }
}
