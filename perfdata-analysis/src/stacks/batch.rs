//! What the reading thread hands the folding thread: batches of samples ([`SampleItem`]) and
//! thread and map changes, with the callchains they refer to.

use perfdata_core::process::MachineEvent;

/// A sample that passed the filters the reader can apply: 56 bytes (a batch holds 16 K of them),
/// its optional fields flagged in `flags`.
#[derive(Clone, Copy)]
pub(super) struct SampleItem {
    pub(super) pid: u32,
    pub(super) tid: u32,
    /// The sample's ip, which perf resolves before its callchain (0 without one).
    pub(super) ip: u64,
    pub(super) weight: u64,
    /// Its callchain is `Batch::ips[chain_at..chain_at + chain_len]` (with [`HAS_CHAIN`]).
    pub(super) chain_at: u32,
    pub(super) chain_len: u32,
    /// The user frames unwound from its stack dump (`--call-graph dwarf`), in `Batch::ips`
    /// after the callchain: addresses, never context markers.
    pub(super) unwound: u32,
    pub(super) cpu: u32,
    /// Index of its event in `PerfFile::events`.
    pub(super) event: u32,
    /// The number of its raw key, when the reader makes them ([`RawKeys`]); `u32::MAX`: none.
    pub(super) key: u32,
    /// [`KERNEL`], [`HAS_IP`], [`HAS_CHAIN`], [`HAS_CPU`].
    pub(super) flags: u8,
}

/// [`SampleItem::flags`]: the sample's cpumode is kernel.
pub(super) const KERNEL: u8 = 1;
/// … it has an ip.
pub(super) const HAS_IP: u8 = 2;
/// … it has a callchain.
pub(super) const HAS_CHAIN: u8 = 4;
/// … it has a cpu.
pub(super) const HAS_CPU: u8 = 8;

impl SampleItem {
    pub(super) fn kernel(&self) -> bool {
        self.flags & KERNEL != 0
    }

    pub(super) fn ip(&self) -> Option<u64> {
        (self.flags & HAS_IP != 0).then_some(self.ip)
    }

    pub(super) fn chain(&self) -> Option<(u32, u32)> {
        (self.flags & HAS_CHAIN != 0).then_some((self.chain_at, self.chain_len))
    }

    pub(super) fn cpu(&self) -> Option<u32> {
        (self.flags & HAS_CPU != 0).then_some(self.cpu)
    }

    #[cfg_attr(not(feature = "pprof"), allow(dead_code))] // (the pprof export's)
    pub(super) fn key(&self) -> Option<u32> {
        (self.key != u32::MAX).then_some(self.key)
    }

    /// This sample with its frames (callchain and unwound frames, in `from`) appended to `to`.
    pub(super) fn moved(&self, from: &[u64], to: &mut Vec<u64>) -> SampleItem {
        let mut s = *self;
        if let Some((chain, more)) = chain_of(from, self) {
            s.chain_at = u32::try_from(to.len()).unwrap_or(u32::MAX);
            to.extend_from_slice(chain);
            to.extend_from_slice(more);
        }
        s
    }
}

/// What the reading thread hands to the folding thread.
pub(super) enum Item {
    /// A sample that passed the filters the reader can apply.
    Sample(SampleItem),
    /// A change to threads or maps (boxed: samples are the bulk and stay small).
    Machine(Box<MachineEvent>),
}

/// Items in record order, with the callchains they refer to; or, with raw keys, the samples by
/// number ([`Numbered`]).
#[derive(Default)]
pub(super) struct Batch {
    pub(super) items: Vec<Item>,
    pub(super) ips: Vec<u64>,
    /// With raw keys, handed over: the samples whose numbers are new, in their numbers' order,
    /// their frames in `ips`.
    pub(super) fresh: Vec<SampleItem>,
    /// With raw keys: the samples in order.
    pub(super) numbered: Numbered,
}

/// With raw keys, the samples and the thread and map changes of a batch in record order, as the
/// reading thread hands them over. The items stay on the reading thread: the folding thread
/// keeps the first sample of each number ([`Batch::fresh`]), and what crosses between the cores
/// is 12 bytes a sample (and 4 an item), which on this VM costs most when the two vCPUs are far
/// apart.
#[derive(Default)]
pub(super) struct Numbered {
    /// Per sample and thread or map change, in order: its item's index in the batch (a sample
    /// whose key an earlier item of the batch has: that item's).
    pub(super) seq: Vec<u32>,
    /// The samples' weights, in order.
    pub(super) weights: Vec<u64>,
    /// Per item: its sample's number, or [`MACHINE`] for the next of `machine`.
    pub(super) numbers: Vec<u32>,
    pub(super) machine: Vec<MachineEvent>,
}

/// [`Numbered::numbers`]: a thread or map change, not a sample's number.
pub(super) const MACHINE: u32 = u32::MAX;
/// [`Numbered::numbers`]: a sample without a number (none is).
pub(super) const UNNUMBERED: u32 = u32::MAX - 1;

impl Batch {
    /// An empty batch with room for `items` items (and their callchains and keys, up to
    /// [`BATCH_IPS`] addresses), so that filling it moves nothing: growing from empty copied
    /// each of the first batches' vectors several times.
    pub(super) fn with_capacity(items: usize, raw_keys: bool) -> Batch {
        let numbered = if raw_keys {
            Numbered {
                seq: Vec::with_capacity(items),
                weights: Vec::with_capacity(items),
                numbers: Vec::with_capacity(items),
                machine: Vec::new(),
            }
        } else {
            Numbered::default()
        };
        Batch { items: Vec::with_capacity(items), ips: Vec::with_capacity(BATCH_IPS), fresh: Vec::new(), numbered }
    }

    /// Empty it, keeping its room.
    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.ips.clear();
        self.fresh.clear();
        self.numbered.seq.clear();
        self.numbered.weights.clear();
        self.numbered.numbers.clear();
        self.numbered.machine.clear();
    }
}

/// The callchain of sample `s` in its batch's addresses `ips`, and the user frames unwound after
/// it (`None`: no callchain).
pub(super) fn chain_of<'a>(ips: &'a [u64], s: &SampleItem) -> Option<(&'a [u64], &'a [u64])> {
    s.chain().map(|(start, len)| {
        let (start, len) = (start as usize, len as usize);
        let user = start.saturating_add(len);
        (ips.get(start..user).unwrap_or(&[]), ips.get(user..user.saturating_add(s.unwound as usize)).unwrap_or(&[]))
    })
}

/// Items per batch: large enough to amortise the channel, small enough to bound the memory in
/// flight (4 batches of a few MB at most).
pub(super) const BATCH_ITEMS: usize = 16 * 1024;
/// Callchain addresses per batch (4 MiB).
pub(super) const BATCH_IPS: usize = 512 * 1024;
/// Items per batch when the reader unwinds stack dumps (`--call-graph dwarf`): each sample then
/// costs the reader tens of microseconds, and smaller batches let the folding thread start early.
pub(super) const BATCH_ITEMS_UNWOUND: usize = 512;
