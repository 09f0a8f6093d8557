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

/// A differential flame graph, red where `after` grew and blue where it shrank, hue by the
/// change: frames sized by `after` (`difffolded.pl before after | flamegraph.pl`), or with
/// `negate` sized by `before`, so that code that vanished still shows
/// (`difffolded.pl after before | flamegraph.pl --negate`).
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
    render(&diff_lines(before, after, normalize, negate), opt)
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

    #[test]
    fn empty_input_gives_an_image() {
        assert!(svg(&FoldedStacks::default(), &FlameGraphOptions::default()).unwrap().contains("No valid input"));
    }
}
