//! Raw keys (the pprof export): the reading thread numbers the distinct samples so that the
//! folding thread folds each number once.

use perfdata_core::process::MachineEvent;
use perfdata_symbolize::FastMap;

use super::batch::{Batch, Item, SampleItem, BATCH_IPS, BATCH_ITEMS, MACHINE, UNNUMBERED};

/// The raw keys of the samples (the pprof export, [`RawKeys`]): a sample's thread, cpu, event,
/// flags (kernel cpumode, has an ip, has a callchain), ip, callchain length, callchain and unwound
/// frames as `u32` words (low half first), then the generations of what the fold reads besides:
/// the process's maps, the thread's comm, the kernel's maps.
///
/// Two samples with equal keys fold to the same stack as long as the kernel's symbols stay the
/// same (perf loads some lazily; the folding thread checks that): so the reader makes the keys,
/// finds the repeats within a batch and numbers the batch's distinct keys ([`KeyNumbers`]), and
/// the folding thread folds each number once and then only counts it.
pub(super) struct RawKeys {
    state: ahash::RandomState,
    /// This batch's hashes, and which of its items are samples.
    batch: BatchKeys,
    /// This batch's keys, one after the other (only each key's first sample's), and where each
    /// item's is (start, length; machine items: length 0).
    keys: Vec<u32>,
    spans: Vec<(u32, u32)>,
    /// The batch's table of keys: a tag of the key's hash (high [`RAW_KEY_TAG_BITS`] bits) and
    /// its first sample's item index + 1 (0: empty). Small (128 KiB), to stay in the cache.
    slots: Vec<u32>,
    /// The generations of the processes' maps, the threads' comms and the kernel's maps, as
    /// [`Folder`]'s `invalidate` bumps them.
    maps: FastMap<u32, u32>,
    comms: FastMap<u32, u32>,
    kernel: u32,
    /// The last sample's pid, tid and generations (most samples follow one of the same thread).
    last: Option<(u32, u32, [u32; 3])>,
    /// The numbers of the distinct keys so far.
    numbers: KeyNumbers,
    /// Scratch: the items of the batch whose numbers are new.
    fresh: Vec<u32>,
}

/// What numbering a batch's raw keys needs besides the keys: per item, the hash of its key
/// (machine items: 0). (A sample whose key an item of the batch already has is no item:
/// [`Numbered::seq`].)
#[derive(Default)]
struct BatchKeys {
    hashes: Vec<u64>,
    /// The sample items, in order.
    firsts: Vec<u32>,
}

/// What a raw key starts with: pid, tid, has a cpu, cpu, event index, and flags (kernel, has an
/// ip, has a callchain).
fn raw_head(s: &SampleItem) -> [u32; 6] {
    let flags = u32::from(s.kernel()) | u32::from(s.ip().is_some()) << 1 | u32::from(s.chain().is_some()) << 2;
    [s.pid, s.tid, u32::from(s.cpu().is_some()), s.cpu, s.event, flags]
}

/// Append the words of a sample's raw key to `out`: [`raw_head`], the ip, the callchain's
/// length, the callchain and the frames unwound after it (each address as two words), and the
/// generations of its process's maps, its thread's comm and the kernel's maps at the sample.
fn raw_key(
    out: &mut Vec<u32>,
    head: [u32; 6],
    ip: u64,
    chain: impl ExactSizeIterator<Item = u64>,
    more: &[u64],
    gens: [u32; 3],
) {
    let [pid, tid, has_cpu, cpu, event, flags] = head;
    let len = u32::try_from(chain.len()).unwrap_or(u32::MAX);
    out.reserve(12 + 2 * (chain.len() + more.len()));
    out.extend_from_slice(&[pid, tid, has_cpu, cpu, event, flags, ip as u32, (ip >> 32) as u32, len]);
    for a in chain.chain(more.iter().copied()) {
        out.push(a as u32);
        out.push((a >> 32) as u32);
    }
    out.extend_from_slice(&gens);
}

/// The numbers of the distinct raw keys so far (on the reading thread).
struct KeyNumbers {
    /// All distinct keys so far, with their number (payload).
    all: crate::arena::ArenaTable<1>,
}

/// Slots of [`RawKeys`]' table of a batch (twice the items of a batch).
const RAW_KEY_SLOTS: usize = 2 * BATCH_ITEMS;

/// Bits of a [`RawKeys`] slot that hold a tag of the hash; the others an item index + 1.
const RAW_KEY_TAG_BITS: u32 = 32 - (BATCH_ITEMS + 1).next_power_of_two().trailing_zeros();

/// How many keys ahead [`KeyNumbers::number`] brings in a key's slot (and half that its entry).
const RAW_KEY_AHEAD: usize = 8;

impl RawKeys {
    /// `words`: room for that many words of distinct keys ([`KeyNumbers::new`]).
    pub(super) fn new(words: usize) -> Self {
        RawKeys {
            numbers: KeyNumbers::new(words),
            fresh: Vec::new(),
            last: None,
            state: ahash::RandomState::new(),
            batch: BatchKeys::default(),
            keys: Vec::with_capacity(BATCH_IPS * 2),
            spans: Vec::with_capacity(BATCH_ITEMS),
            slots: crate::arena::zeros(RAW_KEY_SLOTS),
            maps: FastMap::default(),
            comms: FastMap::default(),
            kernel: 0,
        }
    }

    /// A thread or map change (pushed as an item): bump what `invalidate` bumps.
    pub(super) fn machine(&mut self, e: &MachineEvent) {
        self.last = None;
        let bump = |m: &mut FastMap<u32, u32>, k: u32| {
            let g = m.entry(k).or_insert(0);
            *g = g.wrapping_add(1);
        };
        match e {
            MachineEvent::Map { pid, .. } => bump(&mut self.maps, *pid),
            MachineEvent::KernelMap { .. } => self.kernel = self.kernel.wrapping_add(1),
            MachineEvent::Comm { pid, tid, exec, .. } => {
                bump(&mut self.comms, *tid);
                if *exec {
                    bump(&mut self.maps, *pid);
                }
            }
            MachineEvent::Fork { pid, tid, .. } => {
                bump(&mut self.comms, *tid);
                bump(&mut self.maps, *pid);
            }
            MachineEvent::Exit { .. } => {}
        }
        self.spans.push((0, 0));
        self.batch.hashes.push(0);
    }

    /// The key of sample `s` (its frames in the batch's addresses `ips`), kept as the batch's
    /// next item's if its key is new to the batch; else the index of the item with that key (the
    /// sample is then a repeat, and is no item).
    pub(super) fn sample(
        &mut self,
        s: &SampleItem,
        chain: impl ExactSizeIterator<Item = u64>,
        more: &[u64],
    ) -> Option<usize> {
        let index = self.spans.len();
        let start = self.keys.len();
        let gens = match self.last {
            Some((pid, tid, gens)) if (pid, tid) == (s.pid, s.tid) => gens,
            _ => {
                let (maps, comms) = (self.maps.get(&s.pid), self.comms.get(&s.tid));
                let gens = [maps.copied().unwrap_or(0), comms.copied().unwrap_or(0), self.kernel];
                self.last = Some((s.pid, s.tid, gens));
                gens
            }
        };
        raw_key(&mut self.keys, raw_head(s), s.ip, chain, more, gens);
        let key = self.keys.get(start..).unwrap_or(&[]);
        let hash = self.state.hash_one(key);
        let len = key.len();
        let first = |this: &mut Self| {
            this.batch.firsts.push(index as u32);
            this.spans.push((start as u32, len as u32));
            this.batch.hashes.push(hash);
        };
        let mask = self.slots.len() - 1;
        let mut i = (hash >> (64 - RAW_KEY_SLOTS.trailing_zeros())) as usize;
        let index_bits = 32 - RAW_KEY_TAG_BITS;
        let tag = (hash as u32) >> index_bits << index_bits;
        if index + 1 >= 1 << index_bits {
            // Past the batch's size (thread and map changes are not counted there): not in the table.
            first(self);
            return None;
        }
        while let Some(&slot) = self.slots.get(i) {
            if slot == 0 {
                if let Some(s) = self.slots.get_mut(i) {
                    *s = tag | (index as u32 + 1);
                }
                first(self);
                return None;
            }
            let at = (slot & ((1 << index_bits) - 1)).wrapping_sub(1) as usize;
            if slot & !((1 << index_bits) - 1) != tag {
                i = (i + 1) & mask;
                continue;
            }
            if let (Some(&(s, l)), Some(&h)) = (self.spans.get(at), self.batch.hashes.get(at)) {
                if h == hash && self.keys.get(s as usize..(s + l) as usize) == self.keys.get(start..start + len) {
                    // Seen in this batch: only its first sample's index.
                    self.keys.truncate(start);
                    return Some(at);
                }
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Number the items of `batch` (this thread's) and hand `out` what the
    /// folding thread needs of them: per sample its number and weight, the thread and map
    /// changes, and the samples of new numbers with their frames. Then start the next batch
    /// (`batch` emptied). `None`: more distinct keys than 16 GiB hold.
    pub(super) fn take(&mut self, batch: &mut Batch, out: &mut Batch) -> Option<()> {
        self.fresh.clear();
        let numbered = self.numbers.number(&self.batch, &self.keys, &self.spans, &mut batch.items, &mut self.fresh);
        for &i in &self.fresh {
            if let Some(Item::Sample(s)) = batch.items.get(i as usize) {
                out.fresh.push(s.moved(&batch.ips, &mut out.ips));
            }
        }
        out.numbered.seq.extend_from_slice(&batch.numbered.seq);
        out.numbered.weights.extend_from_slice(&batch.numbered.weights);
        for item in batch.items.drain(..) {
            match item {
                // (Every sample has a number by now; one without would be no first's.)
                Item::Sample(s) => out.numbered.numbers.push(s.key.min(UNNUMBERED)),
                Item::Machine(e) => {
                    out.numbered.numbers.push(MACHINE);
                    out.numbered.machine.push(*e);
                }
            }
        }
        batch.clear();
        self.batch.hashes.clear();
        self.batch.firsts.clear();
        self.keys.clear();
        self.spans.clear();
        self.slots.fill(0);
        numbered
    }
}

impl KeyNumbers {
    /// `words`: room for that many words of distinct keys ([`crate::arena::ArenaTable::with_capacity`]).
    pub(super) fn new(words: usize) -> Self {
        KeyNumbers { all: crate::arena::ArenaTable::with_capacity(words) }
    }

    /// Number a batch's samples (new keys get the next numbers) into their items' `key`: the
    /// batch's hashes, firsts `raw`, its keys' words `keys` and where each item's is, `spans`.
    /// `None`: more distinct keys than 16 GiB hold.
    /// The items whose numbers are new go into `fresh`, in their numbers' order.
    fn number(
        &mut self,
        raw: &BatchKeys,
        keys: &[u32],
        spans: &[(u32, u32)],
        items: &mut [Item],
        fresh: &mut Vec<u32>,
    ) -> Option<()> {
        let firsts = &raw.firsts;
        let hash = |k: usize| firsts.get(k).and_then(|&i| raw.hashes.get(i as usize)).copied();
        for k in 0..RAW_KEY_AHEAD.min(firsts.len()) {
            if let Some(h) = hash(k) {
                self.all.prefetch_slot(h);
            }
        }
        for (k, &i) in firsts.iter().enumerate() {
            if let Some(h) = hash(k + RAW_KEY_AHEAD) {
                self.all.prefetch_slot(h);
            }
            if let Some(h) = hash(k + RAW_KEY_AHEAD / 2) {
                self.all.prefetch_entry(h);
            }
            let i = i as usize;
            let (Some(&h), Some(&(start, len))) = (raw.hashes.get(i), spans.get(i)) else { continue };
            let key = keys.get(start as usize..(start as usize).saturating_add(len as usize)).unwrap_or(&[]);
            let id = match self.all.find(h, key) {
                Ok(at) => self.all.payload(at).and_then(|p| p.first().copied()),
                Err(slot) => {
                    let id = u32::try_from(self.all.entries).ok().filter(|&id| id < UNNUMBERED)?;
                    self.all.insert(h, key, [id], slot)?;
                    fresh.push(i as u32);
                    Some(id)
                }
            };
            if let (Some(Item::Sample(s)), Some(id)) = (items.get_mut(i), id) {
                s.key = id;
            }
        }
        Some(())
    }
}
