//! A counting global allocator for memory tests: include with
//! `#[path = "…/perfdata-core/tests/common/counting.rs"] mod counting;` (it installs itself as the
//! test binary's allocator), then measure with [`peak_during`] under [`SERIAL`].

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        // SAFETY: the caller's layout is passed on unchanged.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CURRENT.fetch_sub(l.size(), Relaxed);
        // SAFETY: `p` was allocated by `System` with this layout (in `alloc`).
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// The counters are global: the tests measure one at a time (lock it for the whole test).
pub static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The peak heap `f` reached above what was allocated when it started, and its result.
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = CURRENT.load(Relaxed);
    PEAK.store(before, Relaxed);
    let t = f();
    (PEAK.load(Relaxed).saturating_sub(before), t)
}
