//! The page's geometry, apart from drawing it: the chart's size, the frame a
//! legend and the marks' lanes give it, the colours of a page's models, where
//! points and labels go.

use super::{DateTime, History, Utc};

/// The chart's size and plot area, in SVG units.
pub(super) const WIDTH: f64 = 960.0;

pub(super) const HEIGHT: f64 = 380.0;

pub(super) const LEFT: f64 = 64.0;

pub(super) const RIGHT: f64 = 72.0;

/// Space between the plot's edges and its first and last point.
pub(super) const PAD: f64 = 48.0;

pub(super) const TOP: f64 = 84.0;

pub(super) const BOTTOM: f64 = 76.0;

/// The plot's height, from a score of 1 down to 0.
pub(super) const PLOT: f64 = HEIGHT - TOP - BOTTOM;

/// The top of the legend's first row.
pub(super) const LEGEND_Y: f64 = 8.0;

/// One row of the legend: a model's `with` and `without` lines.
pub(super) const LEGEND_ROW: f64 = 46.0;

/// The legend's key (best, interval, marks), wide enough for its labels.
pub(super) const KEY_WIDTH: f64 = 300.0;

/// A character of 12px text, on the wide side, so estimated labels never overlap.
pub(super) const CHAR: f64 = 7.2;

/// A character of a mark's 13px bold label, on the wide side.
pub(super) const MARK_CHAR: f64 = 9.0;

/// The least space between two marks in a lane.
pub(super) const MARK_GAP: f64 = 3.0;

/// One lane of decision marks.
pub(super) const LANE: f64 = 17.0;

/// Marks carry their PR only when all of them fit in this many lanes.
pub(super) const PR_LANES: usize = 2;

/// The least distance between two best labels' baselines.
pub(super) const BEST_GAP: f64 = 14.0;

/// A chart's vertical layout: the legend's rows, the lanes of decision marks
/// under them, the plot, the x axis. With one legend row and no mark, the
/// plot's top is [`TOP`] and the chart [`HEIGHT`] tall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Rows of the legend, at least one.
    pub legend_rows: usize,
    /// Lanes of marks.
    pub lanes: usize,
}

impl Frame {
    /// One legend row, no marks.
    pub const PLAIN: Frame = Frame {
        legend_rows: 1,
        lanes: 0,
    };

    /// The top of the marks' strip, under the legend.
    fn strip(&self) -> f64 {
        LEGEND_Y + LEGEND_ROW * self.legend_rows.max(1) as f64
    }

    /// The plot's top: a score of 1.
    pub fn top(&self) -> f64 {
        self.strip() + LANE * self.lanes as f64 + (TOP - LEGEND_Y - LEGEND_ROW)
    }

    /// The plot's bottom: a score of 0, the x axis.
    pub fn base(&self) -> f64 {
        self.top() + PLOT
    }

    /// The chart's height.
    pub fn height(&self) -> f64 {
        self.base() + BOTTOM
    }

    /// The y of a score; a value out of 0..1 (or not a number) is held to the
    /// nearest edge.
    pub fn y(&self, v: f64) -> f64 {
        let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
        self.top() + PLOT * (1.0 - v)
    }

    /// The baseline of lane `lane`'s labels (lane 0 nearest the plot).
    pub fn lane_y(&self, lane: usize) -> f64 {
        self.strip() + LANE * (self.lanes - lane.min(self.lanes.saturating_sub(1))) as f64 - 4.0
    }
}

/// The least distance between the centres of two x labels: wider than the
/// widest label (`2026-12-03`, or `23:59:59` under it, at 12px) with room between.
pub(super) const LABEL_GAP: f64 = 92.0;

/// Twelve colours that read on white (contrast 3.8:1 or more) and stay apart
/// from each other (CIE76 ΔE 23 or more between any two): a page gives each
/// of its models its own.
pub const PALETTE: [&str; 12] = [
    "#1f77b4", "#d35f00", "#9467bd", "#8c564b", "#c2479f", "#12858f", "#6b6b6b", "#858512",
    "#393b79", "#2e8b3e", "#d6434f", "#5c2a0a",
];

/// FNV-1a of a model's name: where its colour is looked for first.
fn name_hash(model: &str) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in model.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// The colour of each model of a page, the same on every chart of it: the
/// palette entry its name hashes to, or the next free one, so that up to
/// twelve models never share a colour (and a model keeps its colour from
/// page to page unless another took it). Past twelve, hues a golden angle
/// apart.
#[derive(Debug, Clone, Default)]
pub struct Palette(std::collections::BTreeMap<String, String>);

impl Palette {
    /// The colours of `models` (any order, repeats allowed).
    pub fn of<'a>(models: impl IntoIterator<Item = &'a str>) -> Palette {
        let models: std::collections::BTreeSet<&str> = models.into_iter().collect();
        let mut taken = [false; PALETTE.len()];
        let mut colours = std::collections::BTreeMap::new();
        for (i, model) in models.iter().enumerate() {
            let start = name_hash(model) as usize % PALETTE.len();
            let free = (0..PALETTE.len())
                .map(|k| (start + k) % PALETTE.len())
                .find(|&k| !taken[k]);
            let colour = match free {
                Some(k) => {
                    taken[k] = true;
                    PALETTE[k].to_string()
                }
                None => hsl_hex((i as f64 * 137.508) % 360.0, 0.68, 0.38),
            };
            colours.insert((*model).to_string(), colour);
        }
        Palette(colours)
    }

    /// The colours of every model of `history`.
    pub fn of_history(history: &History) -> Palette {
        Palette::of(
            history
                .items
                .iter()
                .flat_map(|i| i.series.iter().map(|s| s.model.as_str())),
        )
    }

    /// The colour of `model` (grey for a model the page does not hold).
    pub fn colour(&self, model: &str) -> &str {
        self.0.get(model).map_or("#6b6b6b", String::as_str)
    }
}

/// `hsl(h, s, l)` as `#rrggbb`.
pub(super) fn hsl_hex(h: f64, s: f64, l: f64) -> String {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let m = l - c / 2.0;
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

/// The x of slot `i` of `n` slots across the plot; one slot sits in the middle.
pub fn x_of(i: usize, n: usize) -> f64 {
    let width = WIDTH - LEFT - RIGHT - 2.0 * PAD;
    if n <= 1 {
        LEFT + PAD + width / 2.0
    } else {
        LEFT + PAD + width * i.min(n - 1) as f64 / (n - 1) as f64
    }
}

/// The y of a score in a chart with one legend row and no marks
/// ([`Frame::PLAIN`]).
pub fn y_of(v: f64) -> f64 {
    Frame::PLAIN.y(v)
}

/// The slots of `n` that get a label: the first and the last always, and
/// between them every slot at least [`LABEL_GAP`] from the labels beside it.
pub fn labelled(n: usize) -> Vec<usize> {
    if n == 0 {
        return vec![];
    }
    let last = x_of(n - 1, n);
    let mut keep: Vec<usize> = vec![0];
    for i in 1..n.saturating_sub(1) {
        let x = x_of(i, n);
        if x - x_of(*keep.last().expect("the first"), n) >= LABEL_GAP && last - x >= LABEL_GAP {
            keep.push(i);
        }
    }
    if n > 1 {
        keep.push(n - 1);
    }
    keep
}

/// The x labels of points at `times`: the day, and under it the time of day
/// (to the second when two points share a minute) when two points share a day.
pub fn time_labels(times: &[DateTime<Utc>]) -> Vec<(String, Option<String>)> {
    let shared = |format: &str| {
        let mut seen = std::collections::BTreeSet::new();
        times
            .iter()
            .any(|t| !seen.insert(t.format(format).to_string()))
    };
    let (same_day, same_minute) = (shared("%Y-%m-%d"), shared("%Y-%m-%d %H:%M"));
    times
        .iter()
        .map(|t| {
            let time = match (same_day, same_minute) {
                (false, _) => None,
                (true, false) => Some(t.format("%H:%M UTC").to_string()),
                (true, true) => Some(t.format("%H:%M:%S").to_string()),
            };
            (t.format("%Y-%m-%d").to_string(), time)
        })
        .collect()
}
