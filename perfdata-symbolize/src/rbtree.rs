//! perf's symbol tree (`dso->symbols`, a Linux rbtree keyed by start address), emulated node for
//! node. Where a dso's symbols never overlap, a sorted table answers the same; a kernel module's
//! symbols can overlap (perf 6.1 puts those of its `.ko` and of kallsyms into one tree), and then
//! which symbol `symbols__find` returns depends on the tree's shape: insertion and erasure below
//! follow lib/rbtree.c's `__rb_insert` and `____rb_erase_color` (the textbook red-black algorithms
//! with the successor taking an erased node's place), so the shape is perf's.

use super::Sym;

const NIL: usize = usize::MAX;

#[derive(Clone, Debug)]
struct Node {
    sym: Sym,
    left: usize,
    right: usize,
    parent: usize,
    red: bool,
}

/// Symbols in perf's tree order (by start; equal starts in insertion order).
#[derive(Clone, Debug)]
pub struct SymTree {
    nodes: Vec<Node>,
    root: usize,
    /// Nodes erased (their slots are not reused, like freed memory never read again).
    len: usize,
}

impl Default for SymTree {
    fn default() -> Self {
        SymTree { nodes: Vec::new(), root: NIL, len: 0 }
    }
}

impl SymTree {
    fn node(&self, i: usize) -> Option<&Node> {
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

    fn set(&mut self, i: usize, f: impl FnOnce(&mut Node)) {
        if let Some(n) = self.nodes.get_mut(i) {
            f(n);
        }
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True without symbols.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// perf's `symbols__insert`: descend left when `start` is below a node's, else right.
    pub fn insert(&mut self, sym: Sym) {
        let (mut parent, mut link_left) = (NIL, false);
        let mut p = self.root;
        while let Some(n) = self.node(p) {
            parent = p;
            link_left = sym.start < n.sym.start;
            p = if link_left { n.left } else { n.right };
        }
        let i = self.nodes.len();
        self.nodes.push(Node { sym, left: NIL, right: NIL, parent, red: true });
        self.len += 1;
        if parent == NIL {
            self.root = i;
        } else if link_left {
            self.set(parent, |n| n.left = i);
        } else {
            self.set(parent, |n| n.right = i);
        }
        self.insert_fixup(i);
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
    fn erase(&mut self, z: usize) {
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

    fn first(&self) -> usize {
        let mut p = self.root;
        while self.left(p) != NIL {
            p = self.left(p);
        }
        p
    }

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

    /// The node indexes in tree order.
    fn in_order(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.len);
        let mut i = self.first();
        while i != NIL && out.len() < self.len {
            out.push(i);
            i = self.next(i);
        }
        out
    }

    /// The symbols in tree order.
    pub fn iter(&self) -> impl Iterator<Item = &Sym> + '_ {
        self.in_order().into_iter().filter_map(|i| self.node(i).map(|n| &n.sym))
    }

    /// perf's `symbols__fixup_end` (not for kallsyms): a size-0 symbol ends where the next one
    /// starts; the last one a page after its start rounded up to a page.
    pub fn fixup_end(&mut self) {
        let order = self.in_order();
        for w in order.windows(2) {
            if let [a, b] = *w {
                let next = self.node(b).map_or(0, |n| n.sym.start);
                self.set(a, |n| {
                    if n.sym.end == n.sym.start {
                        n.sym.end = next;
                    }
                });
            }
        }
        if let Some(&last) = order.last() {
            self.set(last, |n| {
                if n.sym.end == n.sym.start {
                    n.sym.end = super::roundup_page(n.sym.start).saturating_add(4096);
                }
            });
        }
    }

    /// perf's `symbols__fixup_duplicate`: of neighbours with one start, the worse one goes
    /// (`choose_best_symbol`).
    pub fn fixup_duplicate(&mut self) {
        let mut curr = self.first();
        while curr != NIL {
            let next = self.next(curr);
            let (Some(c), Some(n)) = (self.node(curr), self.node(next)) else { break };
            if c.sym.start != n.sym.start {
                curr = next;
                continue;
            }
            if super::better(&c.sym, &n.sym, super::Stored::AsIs) {
                self.erase(next);
            } else {
                self.erase(curr);
                curr = next;
            }
        }
    }

    /// perf's `symbols__find`: a binary descent that may miss a symbol overlapping another.
    pub fn find(&self, addr: u64) -> Option<&Sym> {
        let mut p = self.root;
        while let Some(n) = self.node(p) {
            if addr < n.sym.start {
                p = n.left;
            } else if addr >= n.sym.end {
                p = n.right;
            } else {
                return Some(&n.sym);
            }
        }
        None
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
    fn check(t: &SymTree) {
        fn black_height(t: &SymTree, i: usize) -> usize {
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
        let starts: Vec<u64> = t.iter().map(|s| s.start).collect();
        assert!(starts.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(starts.len(), t.len());
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
