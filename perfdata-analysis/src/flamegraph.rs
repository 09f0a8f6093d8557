//! Flame graph SVGs from [`FoldedStacks`], drawn by the `inferno` crate (the Rust port of
//! flamegraph.pl: search, zoom and tooltips in the SVG's JavaScript), and differential graphs
//! (difffolded.pl + `flamegraph.pl --negate`).
//!
//! ```no_run
//! use perfdata_analysis::flamegraph::{svg, FlameGraphOptions};
//! use perfdata_analysis::folded::{folded, FoldedOptions};
//! let file = perfdata_core::PerfFile::open("perf.data")?;
//! let stacks = folded(&file, &FoldedOptions::default())?;
//! std::fs::write("flame.svg", svg(&stacks, &FlameGraphOptions::default())?)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::stacks::FoldedStacks;
use crate::{Error, Result};
use inferno::flamegraph::{self, color::Palette, Direction};

/// How the graph looks.
#[derive(Clone, Debug)]
pub struct FlameGraphOptions {
    /// Title at the top.
    pub title: String,
    /// Second line under the title.
    pub subtitle: Option<String>,
    /// What a unit of weight is called in tooltips ("samples", "ns", …).
    pub count_name: String,
    /// Colour palette name as flamegraph.pl's `--colors` (`hot`, `mem`, `io`, `java`, `js`, `perl`,
    /// `python`, `rust`, `wakeup`, `aqua`, `blue`, `green`, `orange`, `purple`, `red`, `yellow`).
    pub colors: String,
    /// Draw an icicle graph (root at the top).
    pub inverted: bool,
    /// Image width in pixels (`None`: flamegraph.pl's 1200).
    pub width: Option<usize>,
    /// Frames narrower than this many pixels are omitted.
    pub min_width: f64,
}

impl Default for FlameGraphOptions {
    fn default() -> Self {
        FlameGraphOptions {
            title: "Flame Graph".into(),
            subtitle: None,
            count_name: "samples".into(),
            colors: "hot".into(),
            inverted: false,
            width: None,
            min_width: 0.1,
        }
    }
}

fn inferno_options(o: &FlameGraphOptions) -> Result<flamegraph::Options<'static>> {
    let mut opt = flamegraph::Options::default();
    opt.title = o.title.clone();
    opt.subtitle = o.subtitle.clone();
    opt.count_name = o.count_name.clone();
    opt.colors =
        o.colors.parse::<Palette>().map_err(|e| Error::Options(format!("flame graph palette {:?}: {e}", o.colors)))?;
    if o.inverted {
        opt.direction = Direction::Inverted;
        if opt.title == "Flame Graph" {
            opt.title = "Icicle Graph".into();
        }
    }
    opt.image_width = o.width;
    opt.min_width = o.min_width;
    // Colours from the frame names, so two graphs of the same program look alike.
    opt.hash = true;
    Ok(opt)
}

fn render(lines: &str, mut opt: flamegraph::Options<'_>) -> Result<String> {
    let mut out = Vec::new();
    flamegraph::from_lines(&mut opt, lines.lines(), &mut out).map_err(Error::Render)?;
    String::from_utf8(out).map_err(|e| Error::Render(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

/// The SVG of `stacks`.
pub fn svg(stacks: &FoldedStacks, options: &FlameGraphOptions) -> Result<String> {
    if stacks.stacks.is_empty() {
        return Ok(empty_svg(options));
    }
    render(&stacks.to_folded_string(), inferno_options(options)?)
}

/// difffolded.pl's output: every stack of either profile with both weights, `stack before after`,
/// sorted by stack. With `normalize`, the before weights are scaled to the after total.
pub fn diff_folded(before: &FoldedStacks, after: &FoldedStacks, normalize: bool) -> String {
    let mut all: std::collections::BTreeMap<&str, (u64, u64)> = std::collections::BTreeMap::new();
    for (s, w) in &before.stacks {
        all.entry(s).or_default().0 = *w;
    }
    for (s, w) in &after.stacks {
        all.entry(s).or_default().1 = *w;
    }
    let (t1, t2) = (before.total(), after.total());
    let mut out = String::new();
    for (s, (mut a, b)) in all {
        if normalize && t1 != t2 && t1 != 0 {
            a = (a as f64 * t2 as f64 / t1 as f64) as u64;
        }
        out.push_str(&format!("{s} {a} {b}\n"));
    }
    out
}

/// A differential flame graph, red where `after` grew and blue where it shrank, in flamegraph.pl's
/// colours (the deeper, the larger a frame's change against the largest): frames sized by `after`
/// (`difffolded.pl before after | flamegraph.pl`), or with `negate` sized by `before`, so that
/// code that vanished still shows (`difffolded.pl after before | flamegraph.pl --negate`).
pub fn diff_svg(
    before: &FoldedStacks,
    after: &FoldedStacks,
    normalize: bool,
    negate: bool,
    options: &FlameGraphOptions,
) -> Result<String> {
    if before.stacks.is_empty() && after.stacks.is_empty() {
        return Ok(empty_svg(options));
    }
    let mut opt = inferno_options(options)?;
    opt.negate_differentials = negate;
    let lines = diff_lines(before, after, normalize, negate);
    Ok(recolor_differential(&render(&lines, opt)?, &lines, negate))
}

/// flamegraph.pl's differential colour for a frame whose count changed by `delta` (after − before)
/// when the largest change of any stack is `max` (≥ 1): red for growth, blue for shrinking, white
/// for none; the other two channels are 210 × (1 − |delta| / max), truncated, so the largest growth
/// is `rgb(255,0,0)` and the largest shrink `rgb(0,0,255)`. (inferno's palette goes from 250 down to
/// 100 only: pink where flamegraph.pl draws red.)
fn delta_color(delta: i128, max: i128) -> (u8, u8, u8) {
    let max = max.max(1);
    let d = delta.clamp(-max, max);
    let c = |m: i128| u8::try_from(210 * m / max).unwrap_or(0);
    match d.cmp(&0) {
        std::cmp::Ordering::Equal => (255, 255, 255),
        std::cmp::Ordering::Greater => (255, c(max - d), c(max - d)),
        std::cmp::Ordering::Less => (c(max + d), c(max + d), 255),
    }
}

/// A frame as inferno lays it out: where it starts and ends in the summed counts, and its delta.
struct DiffFrame<'a> {
    name: &'a str,
    start: u64,
    end: u64,
    delta: i128,
}

/// The frames inferno draws for the differential `lines`, in the order it writes them, each with
/// the delta flamegraph.pl colours it by: the lines sorted, each line's frames opened where its stack
/// leaves the previous one's, the line's delta (second count − first, negated with `negate`) on
/// its last frame and 0 on the others; frames closed outermost first when a stack leaves them.
/// Also the largest |delta| of any line (at least 1), flamegraph.pl's scale.
fn diff_frames(lines: &str, negate: bool) -> (Vec<DiffFrame<'_>>, i128) {
    let mut sorted: Vec<&str> =
        lines.lines().map(str::trim).filter(|l| !(l.is_empty() || l.starts_with("# "))).collect();
    sorted.sort_unstable();
    let mut frames = Vec::new();
    let mut open: Vec<(&str, u64, i128)> = Vec::new();
    let (mut time, mut max) = (0u64, 1i128);
    for line in sorted {
        let mut fields = line.rsplitn(3, ' ');
        let (Some(second), Some(first), Some(stack)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let (Ok(second), Ok(first)) = (second.parse::<u64>(), first.parse::<u64>()) else {
            continue;
        };
        let stack = stack.trim_end();
        let delta = i128::from(second) - i128::from(first);
        max = max.max(delta.abs());
        if stack.is_empty() {
            continue;
        }
        let path: Vec<&str> = std::iter::once("").chain(stack.split(';')).collect();
        let shared = open.iter().zip(&path).take_while(|((f, ..), p)| f == *p).count();
        for (name, start, d) in open.drain(shared..) {
            frames.push(DiffFrame { name, start, end: time, delta: d });
        }
        let leaf = path.len() - 1;
        for (i, name) in path.iter().enumerate().skip(shared) {
            let d = if i == leaf { delta } else { 0 };
            open.push((name, time, if negate { -d } else { d }));
        }
        time = time.saturating_add(second);
    }
    for (name, start, d) in open.drain(..) {
        frames.push(DiffFrame { name, start, end: time, delta: d });
    }
    (frames, max)
}

/// `svg` (inferno's differential graph of `lines`) with every frame's fill set to flamegraph.pl's
/// colour for its delta ([`delta_color`]); everything else (titles, text, script) is kept. Frames
/// are matched in order by their `fg:x`/`fg:w` (start and width in counts): inferno writes them in
/// [`diff_frames`]'s order, leaving out those too narrow to see.
fn recolor_differential(svg: &str, lines: &str, negate: bool) -> String {
    let (frames, max) = diff_frames(lines, negate);
    let mut frames = frames.iter();
    let attr = |tag: &str, name: &str| -> Option<(usize, usize)> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some((at, at + tag[at..].find('"')?))
    };
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(at) = rest.find("<rect ") {
        let Some(len) = rest[at..].find('>') else { break };
        let (before, tag) = (&rest[..at], &rest[at..at + len]);
        out.push_str(before);
        let num = |name| attr(tag, name).and_then(|(a, b)| tag[a..b].parse::<u64>().ok());
        let recolored = match (num("fg:x"), num("fg:w"), attr(tag, "fill")) {
            (Some(x), Some(w), Some((a, b))) => frames
                .find(|f| f.start == x && f.end - f.start == w)
                .filter(|f| f.name != "--" && f.name != "-")
                .map(|f| {
                    let (r, g, b2) = delta_color(f.delta, max);
                    format!("{}rgb({r},{g},{b2}){}", &tag[..a], &tag[b..])
                }),
            _ => None,
        };
        out.push_str(recolored.as_deref().unwrap_or(tag));
        rest = &rest[at + len..];
    }
    out.push_str(rest);
    out
}

/// The lines [`diff_svg`] draws: [`diff_folded`] of `before` and `after`, or with `negate` of
/// `after` and `before` (flamegraph.pl `--negate` reads them that way round).
pub fn diff_lines(before: &FoldedStacks, after: &FoldedStacks, normalize: bool, negate: bool) -> String {
    if negate {
        diff_folded(after, before, normalize)
    } else {
        diff_folded(before, after, normalize)
    }
}

/// flamegraph.pl's "ERROR: No valid input provided" image, which inferno refuses to draw.
fn empty_svg(o: &FlameGraphOptions) -> String {
    let w = o.width.unwrap_or(1200);
    format!(
        "<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" width=\"{w}\" height=\"60\" \
         xmlns=\"http://www.w3.org/2000/svg\"><text x=\"{}\" y=\"30\" text-anchor=\"middle\" \
         font-family=\"Verdana\" font-size=\"17\">ERROR: No valid input provided to flamegraph</text></svg>\n",
        w / 2
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stacks(lines: &[(&str, u64)]) -> FoldedStacks {
        FoldedStacks { stacks: lines.iter().map(|(s, w)| (s.to_string(), *w)).collect(), ..Default::default() }
    }

    #[test]
    fn an_svg_with_every_frame() {
        let s = svg(&stacks(&[("a;b;c", 3), ("a;d", 1)]), &FlameGraphOptions::default()).unwrap();
        assert!(s.starts_with("<?xml") && s.contains("</svg>"));
        for f in
            ["<title>a (4 samples, 100.00%)</title>", "<title>c (3 samples, 75.00%)</title>", "<title>d (1 samples"]
        {
            assert!(s.contains(f), "{f}");
        }
        assert!(s.contains("function search"), "interactive: search");
    }

    #[test]
    fn differential_lines_and_colours() {
        let (a, b) = (stacks(&[("m;x", 10), ("m;y", 10)]), stacks(&[("m;x", 30), ("m;z", 10)]));
        assert_eq!(diff_folded(&a, &b, false), "m;x 10 30\nm;y 10 0\nm;z 0 10\n");
        assert_eq!(diff_folded(&a, &b, true), "m;x 20 30\nm;y 20 0\nm;z 0 10\n");
        let red = |s: &str, f: &str| {
            s.contains(&format!("{f}</title><rect")) && {
                let at = s.find(&format!("<title>{f}")).unwrap();
                s[at..].split("fill=\"").nth(1).unwrap().starts_with("rgb(255,")
            }
        };
        // Sized by after: x (30) grew, z is new.
        let s = diff_svg(&a, &b, false, false, &FlameGraphOptions::default()).unwrap();
        assert!(s.contains("<title>x (30 samples, 75.00%; +50.00%)"), "{s}");
        assert!(red(&s, "x (30 samples, 75.00%; +50.00%)") && !s.contains("<title>y "));
        // Sized by before: y (10) still shows, blue.
        let s = diff_svg(&a, &b, false, true, &FlameGraphOptions::default()).unwrap();
        assert!(s.contains("<title>x (10 samples, 50.00%; +100.00%)"));
        assert!(red(&s, "x (10 samples, 50.00%; +100.00%)"));
        assert!(s.contains("<title>y (10 samples, 50.00%; -50.00%)"));
        assert!(!red(&s, "y (10 samples, 50.00%; -50.00%)"));
    }

    /// The fill of the frame whose tooltip starts with `title`.
    fn fill<'a>(svg: &'a str, title: &str) -> &'a str {
        let at = svg.find(&format!("<title>{title}")).unwrap_or_else(|| panic!("no frame {title}: {svg}"));
        let rest = &svg[at..];
        assert!(rest.find("</g>").unwrap() > rest.find("<rect").unwrap(), "{title}: the frame's rect");
        rest.split("fill=\"").nth(1).unwrap().split('"').next().unwrap()
    }

    /// flamegraph.pl's colour_scale: 210 × (max − |delta|) / max, truncated, in the two channels
    /// other than red (growth) or blue (shrink); white for no change.
    #[test]
    fn differential_colours_are_flamegraph_pl_s() {
        assert_eq!(delta_color(20, 20), (255, 0, 0));
        assert_eq!(delta_color(-20, 20), (0, 0, 255));
        assert_eq!(delta_color(0, 20), (255, 255, 255));
        assert_eq!(delta_color(10, 20), (255, 105, 105));
        assert_eq!(delta_color(-1, 3), (140, 140, 255));
        assert_eq!(delta_color(1, 1000), (255, 209, 209));
        // Before: x 10, y 30, w 5; after: x 30 (+20, the largest change), y 10 (−20), w 5 (0), z 10 (+10).
        let a = stacks(&[("m;x", 10), ("m;y", 30), ("m;w", 5)]);
        let b = stacks(&[("m;x", 30), ("m;y", 10), ("m;w", 5), ("m;z", 10)]);
        for negate in [false, true] {
            let s = diff_svg(&a, &b, false, negate, &FlameGraphOptions::default()).unwrap();
            let (x, y, w) = if negate {
                ("x (10 samples, 22.22%; +44.44%)", "y (30 samples, 66.67%; -44.44%)", "w (5 samples, 11.11%; 0.00%)")
            } else {
                ("x (30 samples, 54.55%; +36.36%)", "y (10 samples, 18.18%; -36.36%)", "w (5 samples, 9.09%; 0.00%)")
            };
            assert_eq!(fill(&s, x), "rgb(255,0,0)", "negate {negate}");
            assert_eq!(fill(&s, y), "rgb(0,0,255)", "negate {negate}");
            assert_eq!(fill(&s, w), "rgb(255,255,255)", "negate {negate}");
            // m itself and the root have no samples of their own: no change.
            assert_eq!(fill(&s, "m ("), "rgb(255,255,255)");
            assert_eq!(fill(&s, "all ("), "rgb(255,255,255)");
            if negate {
                // z has no before samples: not drawn when sized by before.
                assert!(!s.contains("<title>z "));
            } else {
                assert_eq!(fill(&s, "z (10 samples, 18.18%; +18.18%)"), "rgb(255,105,105)");
            }
            // Only the frames' fills changed: the graph is inferno's otherwise.
            assert_eq!(s.matches("<title>").count(), if negate { 5 } else { 6 });
            assert!(s.contains("function search") && s.contains("fill=\"url(#background)\""));
        }
    }

    /// A recursive stack: equal frames above each other are told apart by their place, and a
    /// frame's colour is its own change (self counts), not its children's.
    #[test]
    fn differential_colours_of_nested_frames() {
        let a = stacks(&[("a", 4), ("a;a", 2), ("a;a;a", 8), ("b;--", 4)]);
        let b = stacks(&[("a", 4), ("a;a", 6), ("a;a;a", 4), ("b;--", 6)]);
        let s = diff_svg(&a, &b, false, false, &FlameGraphOptions::default()).unwrap();
        assert_eq!(fill(&s, "a (14 samples"), "rgb(255,255,255)");
        assert_eq!(fill(&s, "a (10 samples"), "rgb(255,0,0)"); // +4 of 4
        assert_eq!(fill(&s, "a (4 samples, 20.00%; -20.00%)"), "rgb(0,0,255)"); // −4
        assert_eq!(fill(&s, "b (6 samples"), "rgb(255,255,255)");
        // flamegraph.pl's very dark grey for the "--" separator frame stays.
        assert_eq!(fill(&s, "-- (6 samples"), "rgb(160,160,160)");
    }

    #[test]
    fn empty_input_gives_an_image() {
        assert!(svg(&FoldedStacks::default(), &FlameGraphOptions::default()).unwrap().contains("No valid input"));
    }
}
