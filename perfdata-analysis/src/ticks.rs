//! Round numbers for picture axes: 1, 2 or 5 × 10^k (the heat maps' and the timeline's ticks).

/// 1, 2 or 5 × 10^k, the smallest at or above `v`.
pub(crate) fn nice_step(v: u64) -> u64 {
    let mut p: u64 = 1;
    loop {
        for m in [1u64, 2, 5] {
            let s = p.saturating_mul(m);
            if s >= v || s == u64::MAX {
                return s;
            }
        }
        p = p.saturating_mul(10);
    }
}

/// 1, 2 or 5 × 10^k, the largest at or below `v` (1 for 0).
pub(crate) fn nice_floor(v: u64) -> u64 {
    let mut best = 1;
    let mut p: u64 = 1;
    loop {
        for m in [1u64, 2, 5] {
            match p.checked_mul(m) {
                Some(s) if s <= v => best = s,
                _ => return best,
            }
        }
        match p.checked_mul(10) {
            Some(q) => p = q,
            None => return best,
        }
    }
}
