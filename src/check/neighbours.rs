//! Neighbours: items whose `description`s are nearly the same.
//!
//! The model picks the skill (command, agent) to call by its description, so
//! two items described alike compete for the same prompts, and either may
//! fire for the other (`run --neighbours` measures it). `check` warns about
//! each checked item whose description is nearly another item's.
//!
//! The measure: the Jaccard similarity of the two descriptions' content-word
//! sets ([`words`]: lower case, stop words and description boilerplate left
//! out, a light suffix strip so `writes`, `writing` and `write` count as one
//! word), warned at [`THRESHOLD`] or more. It is exact, and fast at a thousand
//! items without comparing every pair: identical sets are grouped first, and
//! the distinct sets are joined by prefix filtering (Bayardo, Ma and Srikant,
//! "Scaling up all pairs similarity search", 2007): with the words of every
//! set ordered rarest first, two sets with a similarity of at least `t` share
//! a word among the first `|x| - ⌈t·|x|⌉ + 1` of each, so only sets sharing
//! such a rare word are ever compared.

use super::Out;
use super::offered::Read;
use crate::diagnostic::Code;
use crate::item::Item;
use camino::Utf8Path;
use std::collections::HashMap;

/// The similarity at and above which two descriptions are "nearly the same",
/// as a fraction (numerator, denominator): 0.6. A description copied from
/// another and edited scores 0.6–1; two items of one domain with different
/// purposes (a commit message and a changelog entry) about 0.3, and so does a
/// paraphrase in other words (see the tests).
pub const THRESHOLD: (usize, usize) = (3, 5);

/// How many neighbours a warning names (the others are counted).
const SHOWN: usize = 3;

/// Words that say nothing about what sets an item apart: English function
/// words and the boilerplate of descriptions ("Use when the user asks…").
const STOP: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "ask", "asked", "asks",
    "at", "be", "before", "by", "can", "claude", "do", "does", "each", "for", "from", "has",
    "have", "help", "helps", "how", "if", "in", "into", "is", "it", "its", "like", "may", "more",
    "must", "need", "needs", "no", "not", "of", "on", "one", "or", "other", "out", "should",
    "skill", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "up", "use", "used", "uses", "using", "user", "users",
    "via", "want", "wants", "was", "way", "we", "what", "when", "whenever", "where", "which",
    "while", "who", "will", "with", "without", "would", "you", "your",
];

/// The content words of a description: runs of letters and digits, lower
/// case, at least two characters, stop words left out, each with a light
/// suffix strip (`-ing`, `-ed`, `-es`, `-s`, then a final `e`); sorted and
/// deduplicated.
pub fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 2 && !STOP.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `word` without one inflection suffix and a final `e`, keeping at least
/// three characters: `writing`, `writes`, `write` → `writ`.
fn stem(word: &str) -> String {
    let keep = |s: &str| s.chars().count() >= 3;
    let mut w = word;
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(rest) = w.strip_suffix(suffix)
            && keep(rest)
            && !(suffix == "s" && rest.ends_with('s'))
        {
            w = rest;
            break;
        }
    }
    if let Some(rest) = w.strip_suffix('e')
        && keep(rest)
    {
        w = rest;
    }
    w.to_owned()
}

/// Whether `overlap` shared words of sets of sizes `a` and `b` reach the
/// [`THRESHOLD`]: `overlap / (a + b - overlap) ≥ num / den`, in integers.
fn reaches(overlap: usize, a: usize, b: usize) -> bool {
    let (num, den) = THRESHOLD;
    overlap * den >= num * (a + b - overlap)
}

/// The smallest overlap a set of `n` words needs with any set to reach the
/// threshold: `⌈t·n⌉`.
fn min_overlap(n: usize) -> usize {
    let (num, den) = THRESHOLD;
    (num * n).div_ceil(den)
}

/// The shared elements of two sorted slices.
fn overlap(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The similarity of every set to the others, at [`THRESHOLD`] or above.
#[derive(Debug, Clone, Default)]
pub struct SimilarityGroups {
    /// The sets with the same words, as indices into the input.
    groups: Vec<Vec<usize>>,
    /// The group of each input set (`None` for a set with no word).
    group_of: Vec<Option<usize>>,
    /// For each group, the other groups near it with their similarity, most similar first.
    near: Vec<Vec<(usize, f64)>>,
}

impl SimilarityGroups {
    /// Join `sets` (each sorted and deduplicated, as [`words`] returns them).
    pub fn build(sets: &[Vec<String>]) -> Self {
        // Identical sets form one group; a set with no word has none.
        let mut by_set: HashMap<&[String], usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut group_of = Vec::with_capacity(sets.len());
        for (i, set) in sets.iter().enumerate() {
            if set.is_empty() {
                group_of.push(None);
                continue;
            }
            let g = *by_set.entry(set.as_slice()).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(i);
            group_of.push(Some(g));
        }
        // Each distinct word's rank: rarest first (over the groups), ties by word.
        let mut frequency: HashMap<&str, usize> = HashMap::new();
        for members in &groups {
            for w in &sets[members[0]] {
                *frequency.entry(w).or_default() += 1;
            }
        }
        let mut order: Vec<(&str, usize)> = frequency.into_iter().collect();
        order.sort_unstable_by(|a, b| (a.1, a.0).cmp(&(b.1, b.0)));
        let rank: HashMap<&str, u32> = order
            .iter()
            .enumerate()
            .map(|(r, (w, _))| (*w, u32::try_from(r).unwrap_or(u32::MAX)))
            .collect();
        let ranked: Vec<Vec<u32>> = groups
            .iter()
            .map(|members| {
                let mut r: Vec<u32> = sets[members[0]].iter().map(|w| rank[w.as_str()]).collect();
                r.sort_unstable();
                r
            })
            .collect();

        // Prefix filtering: index each group under the rarest words of its
        // prefix; a group meets only the groups sharing one of them.
        let mut near: Vec<Vec<(usize, f64)>> = vec![Vec::new(); groups.len()];
        let mut index: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut seen = vec![usize::MAX; groups.len()];
        for (x, words) in ranked.iter().enumerate() {
            let prefix = words.len() - min_overlap(words.len()) + 1;
            for w in &words[..prefix.min(words.len())] {
                for &y in index.get(w).map(Vec::as_slice).unwrap_or(&[]) {
                    if seen[y] == x {
                        continue;
                    }
                    seen[y] = x;
                    let (a, b) = (words.len(), ranked[y].len());
                    // The length filter: the smaller set cannot cover enough of the larger.
                    if !reaches(a.min(b), a, b) {
                        continue;
                    }
                    let o = overlap(words, &ranked[y]);
                    if reaches(o, a, b) {
                        let j = o as f64 / (a + b - o) as f64;
                        near[x].push((y, j));
                        near[y].push((x, j));
                    }
                }
            }
            for w in &words[..prefix.min(words.len())] {
                index.entry(*w).or_default().push(x);
            }
        }
        for list in &mut near {
            list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        SimilarityGroups {
            groups,
            group_of,
            near,
        }
    }

    /// The sets near set `i`: how many, and the first `shown` of them (most
    /// similar first, then in input order) with their similarity.
    pub fn of(&self, i: usize, shown: usize) -> (usize, Vec<(usize, f64)>) {
        let Some(g) = self.group_of.get(i).copied().flatten() else {
            return (0, Vec::new());
        };
        let lists = std::iter::once((g, 1.0)).chain(self.near[g].iter().copied());
        let mut count = 0;
        let mut first = Vec::new();
        for (h, j) in lists {
            for &member in &self.groups[h] {
                if member == i {
                    continue;
                }
                count += 1;
                if first.len() < shown {
                    first.push((member, j));
                }
            }
        }
        (count, first)
    }
}

/// Warn about each item of `checked` whose description is nearly another
/// item's of `source` (every skill, command and agent it holds).
pub(super) fn check(
    source: &Utf8Path,
    checked: &[String],
    known: &HashMap<String, Read>,
    out: &mut Out,
) {
    // Reading a thousand descriptions is the slow part: each item a suite's
    // check read already is reused, the others are read on every core.
    let items =
        crate::item::all_known(source, |name| known.get(name).map(|(item, _)| item.clone()));
    let read =
        crate::parallel::map(
            &items,
            crate::parallel::cores_for(items.len()),
            |item| match known.get(item.name.as_str()) {
                Some((same, description)) if same == item => description.clone(),
                _ => super::offered::description(item),
            },
        );
    let described: Vec<(Item, String, camino::Utf8PathBuf, Option<usize>)> = items
        .into_iter()
        .zip(read)
        .filter_map(|(item, found)| {
            let (text, file, line) = found?;
            Some((item, text, file, line))
        })
        .collect();
    let sets: Vec<Vec<String>> = described.iter().map(|(_, text, ..)| words(text)).collect();
    let near = SimilarityGroups::build(&sets);
    let (num, den) = THRESHOLD;
    let threshold = num as f64 / den as f64;
    for (i, (item, _, file, line)) in described.iter().enumerate() {
        if !checked.iter().any(|c| *c == item.name) {
            continue;
        }
        let (count, first) = near.of(i, SHOWN);
        if count == 0 {
            continue;
        }
        let named: Vec<String> = first
            .iter()
            .map(|&(j, s)| format!("`{}` ({s:.2})", described[j].0.name))
            .collect();
        let more = if count > first.len() {
            format!(" and {} more", count - first.len())
        } else {
            String::new()
        };
        let them = first
            .iter()
            .map(|&(j, _)| described[j].0.name.as_str())
            .collect::<Vec<_>>()
            .join(",");
        out.warn(
            Code::SimilarDescription,
            file,
            *line,
            format!(
                "`{}`'s description is nearly that of {}{more} (the Jaccard similarity of their content words, warned at {threshold:.2} or more): the model picks an item by its description, so either may fire for the other",
                item.name,
                named.join(", "),
            ),
            format!(
                "say in each description when to use it and not the other, then measure it: `bob-eval run {} --neighbours {them}`",
                item.name
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(a: &str, b: &str) -> f64 {
        let (a, b) = (words(a), words(b));
        let o = a.iter().filter(|w| b.contains(w)).count();
        o as f64 / (a.len() + b.len() - o) as f64
    }

    const COMMIT: &str = "Write a conventional commit message (type(scope): subject, then a body that says why). Use when asked to write or improve a commit message.";

    #[test]
    fn words_are_content_words_stemmed() {
        assert_eq!(
            words(COMMIT),
            [
                "body",
                "commit",
                "conventional",
                "improv",
                "messag",
                "say",
                "scop",
                "subject",
                "typ",
                "why",
                "writ"
            ]
        );
        assert_eq!(
            words("Writes; WRITING, written? write"),
            ["writ", "written"]
        );
        assert_eq!(words("Use it when you want to."), Vec::<String>::new());
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("tests"), "test");
    }

    /// The threshold catches a description copied and edited, not a sibling
    /// of the same domain with another purpose; nor (a limit of any measure
    /// over words) a paraphrase in other words, which `run --neighbours` measures.
    #[test]
    fn the_threshold_catches_copies_not_siblings() {
        let t = THRESHOLD.0 as f64 / THRESHOLD.1 as f64;
        let copied = "Write a conventional commit message (type(scope): subject, then a body). Use when asked to write a commit message for staged changes.";
        let reworded = "Drafts commit messages in the Conventional Commits format, with a subject line and an explanatory body. Use for git commit messages.";
        let sibling = "Write a changelog entry for a commit (what changed and why). Use when asked to write or improve a changelog.";
        let other =
            "Review a pull request for bugs, tests and style; use when asked for a code review.";
        let s = |x| (sim(COMMIT, x) * 100.0).round() / 100.0;
        assert_eq!(s(copied), 0.62);
        assert!(s(copied) >= t);
        assert_eq!(s(reworded), 0.31);
        assert_eq!(s(sibling), 0.29);
        assert_eq!(s(other), 0.0);
    }

    /// The index finds exactly the pairs a comparison of every pair finds.
    #[test]
    fn prefix_filtering_is_exact() {
        let vocab: Vec<String> = (0..12).map(|i| format!("w{i}")).collect();
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let sets: Vec<Vec<String>> = (0..300)
            .map(|_| {
                let n = (next() % 6) as usize;
                let mut s: Vec<String> = (0..n)
                    .map(|_| vocab[(next() % 12) as usize].clone())
                    .collect();
                s.sort();
                s.dedup();
                s
            })
            .collect();
        let index = SimilarityGroups::build(&sets);
        for i in 0..sets.len() {
            let (count, first) = index.of(i, usize::MAX);
            let mut expected: Vec<(usize, f64)> = (0..sets.len())
                .filter(|&j| j != i && !sets[i].is_empty() && !sets[j].is_empty())
                .filter_map(|j| {
                    let o = sets[i].iter().filter(|w| sets[j].contains(w)).count();
                    let (a, b) = (sets[i].len(), sets[j].len());
                    reaches(o, a, b).then(|| (j, o as f64 / (a + b - o) as f64))
                })
                .collect();
            expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let mut got = first.clone();
            got.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            assert_eq!(count, expected.len(), "set {i}: {:?}", sets[i]);
            assert_eq!(got, expected, "set {i}: {:?}", sets[i]);
        }
    }

    #[test]
    fn identical_sets_count_each_member_once() {
        let set = vec!["bench".to_string(), "item".to_string()];
        let sets = vec![set.clone(), set.clone(), vec![], set];
        let index = SimilarityGroups::build(&sets);
        assert_eq!(index.of(0, 1), (2, vec![(1, 1.0)]));
        assert_eq!(index.of(2, 3), (0, vec![]));
    }
}
