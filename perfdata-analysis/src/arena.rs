//! A hash set of `u32`-word keys kept in one arena (the pprof export's distinct samples and
//! raw sample keys).

/// The most words [`ArenaTable::with_capacity`] reserves (256 MiB of address space): more could
/// fail where memory is not overcommitted.
const RESERVE_MAX: usize = 1 << 26;

/// Words before an entry's payload in the arena: hash (2), key length.
const HEAD_WORDS: usize = 3;

/// Distinct keys (`u32` words) in order of first appearance, each with `P` payload words. Each
/// entry sits in one arena, its hash, length and payload just before its key, and the table's
/// slots (open addressing, linear probing) hold the high half of its hash beside its offset: a
/// lookup reads one slot and one place in the arena (a garbage-ridden `-g` file has many
/// distinct stacks, 122 K for 1.3 M samples in the benchmark's, so that place is rarely in the
/// cache: [`ArenaTable::prefetch_entry`] asks for it ahead), and growing the table reads no key.
pub(crate) struct ArenaTable<const P: usize> {
    /// 0: empty; else the hash's high 32 bits, then the entry's offset + 1. A key's first slot
    /// is its hash's top bits, which the high half holds: growing needs no hash recomputed.
    slots: Vec<u64>,
    arena: Vec<u32>,
    /// How many keys.
    pub entries: usize,
}

impl<const P: usize> Default for ArenaTable<P> {
    fn default() -> Self {
        ArenaTable { slots: Vec::new(), arena: Vec::new(), entries: 0 }
    }
}

/// The u64 at `words[i..i + 2]` (low word first).
pub(crate) fn word64(words: &[u32], i: usize) -> u64 {
    match words.get(i..i + 2) {
        Some(&[lo, hi]) => u64::from(lo) | u64::from(hi) << 32,
        _ => 0,
    }
}

/// Add `count` and `period` to the (count, period) at the start of a payload.
#[cfg_attr(not(feature = "pprof"), allow(dead_code))] // (the pprof export's)
pub(crate) fn bump(payload: Option<&mut [u32]>, count: u64, period: u64) {
    if let Some([c0, c1, p0, p1, ..]) = payload {
        let c = (u64::from(*c0) | u64::from(*c1) << 32).saturating_add(count);
        let p = (u64::from(*p0) | u64::from(*p1) << 32).saturating_add(period);
        (*c0, *c1, *p0, *p1) = (c as u32, (c >> 32) as u32, p as u32, (p >> 32) as u32);
    }
}

/// Ask the CPU to bring `p`'s cache line in (no effect on what the program computes).
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and changes nothing the program can observe, whatever the
    // address; SSE is part of x86_64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// `len` zeros, written: not `vec![0; len]`, whose untouched calloc pages a lookup would first map
/// to the shared zero page, so that the insert after it faults again to copy that page and
/// flushes the other threads' TLBs (an interrupt to each CPU they run on) for every page. On the
/// pprof export's tables this cost 5 % of the wall time.
pub(crate) fn zeros<T: Copy + Default>(len: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    v.resize(len, T::default());
    v
}

impl<const P: usize> ArenaTable<P> {
    /// A table whose arena has room for `words` without moving (address space only: the pages
    /// are touched as keys arrive; the arena is not copied while it fits).
    /// At most [`RESERVE_MAX`] words: a larger arena grows (and is copied) as a Vec does.
    pub(crate) fn with_capacity(words: usize) -> Self {
        ArenaTable { arena: Vec::with_capacity(words.min(RESERVE_MAX)), ..ArenaTable::default() }
    }

    /// The first slot of a key of hash `hash`.
    fn home(&self, hash: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        if bits == 0 {
            return 0;
        }
        (hash >> (64 - bits)) as usize
    }

    /// The offset of `key`'s entry, or the empty slot where it would go.
    pub(crate) fn find(&self, hash: u64, key: &[u32]) -> Result<usize, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = self.home(hash);
        while let Some(&slot) = self.slots.get(i) {
            if slot == 0 {
                return Err(i);
            }
            if slot >> 32 == hash >> 32 {
                let at = (slot as u32).wrapping_sub(1) as usize;
                if word64(&self.arena, at) == hash
                    && self.arena.get(at + 2) == Some(&(key.len() as u32))
                    && self.arena.get(at + HEAD_WORDS + P..at + HEAD_WORDS + P + key.len()) == Some(key)
                {
                    return Ok(at);
                }
            }
            i = (i + 1) & mask;
        }
        Err(usize::MAX)
    }

    /// Add `key` (not in the table; `slot`: where [`ArenaTable::find`] said it goes) with its
    /// payload; its offset, `None` past 16 GiB of keys.
    pub(crate) fn insert(&mut self, hash: u64, key: &[u32], payload: [u32; P], slot: usize) -> Option<usize> {
        let at = self.arena.len();
        let id = u32::try_from(at + 1).ok().filter(|&id| id < u32::MAX)?;
        let slot = if (self.entries + 1) * 2 > self.slots.len() {
            self.grow();
            self.free_slot(hash)
        } else {
            slot
        };
        *self.slots.get_mut(slot)? = hash >> 32 << 32 | u64::from(id);
        self.arena.extend_from_slice(&[hash as u32, (hash >> 32) as u32, key.len() as u32]);
        self.arena.extend_from_slice(&payload);
        self.arena.extend_from_slice(key);
        self.entries += 1;
        Some(at)
    }

    /// The first empty slot from a hash's first.
    fn free_slot(&self, hash: u64) -> usize {
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = self.home(hash);
        while self.slots.get(i).is_some_and(|&s| s != 0) {
            i = (i + 1) & mask;
        }
        i
    }

    /// Twice the slots (at most half of them used).
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(1 << 10);
        let old = std::mem::replace(&mut self.slots, zeros(len));
        for slot in old.into_iter().filter(|&s| s != 0) {
            let i = self.free_slot(slot);
            if let Some(s) = self.slots.get_mut(i) {
                *s = slot;
            }
        }
    }

    /// The payload of the entry at `at`.
    pub(crate) fn payload(&mut self, at: usize) -> Option<&mut [u32]> {
        self.arena.get_mut(at + HEAD_WORDS..at + HEAD_WORDS + P)
    }

    /// Bring in the first slot of a key of hash `hash`.
    pub(crate) fn prefetch_slot(&self, hash: u64) {
        if let Some(s) = self.slots.get(self.home(hash)) {
            prefetch(s);
        }
    }

    /// Bring in the entry the first slot of a key of hash `hash` points to, if its hash matches
    /// (the slot itself should be in the cache: [`ArenaTable::prefetch_slot`]).
    pub(crate) fn prefetch_entry(&self, hash: u64) {
        match self.slots.get(self.home(hash)) {
            Some(&slot) if slot != 0 && slot >> 32 == hash >> 32 => {
                if let Some(w) = self.arena.get((slot as u32).wrapping_sub(1) as usize) {
                    prefetch(w);
                }
            }
            _ => {}
        }
    }

    /// (offset, key, payload) in order of first appearance.
    #[cfg_attr(not(feature = "pprof"), allow(dead_code))] // (the pprof export's)
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, &[u32], &[u32])> {
        let mut at = 0;
        std::iter::from_fn(move || {
            let len = *self.arena.get(at + 2)? as usize;
            let payload = self.arena.get(at + HEAD_WORDS..at + HEAD_WORDS + P)?;
            let key = self.arena.get(at + HEAD_WORDS + P..at + HEAD_WORDS + P + len)?;
            let item = (at, key, payload);
            at += HEAD_WORDS + P + len;
            Some(item)
        })
    }
}
