//! Every built-in scenario file, changed at random the way a person editing one might (a line
//! deleted, duplicated or swapped, a number or a duration pushed to an extreme, a name
//! misspelt, the file cut short), must be either refused with an error or run: never a panic.
//! Deterministic (a fixed generator), bounded (each run stops at a few virtual seconds).
//! `CLUSTERSCOPE_MUTATIONS=N` edits each file N times (default 20); `CLUSTERSCOPE_MUTATIONS_SHOW=1`
//! prints the errors of the refused ones.

use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin::FILES;
use clusterscope_core::scenario::Scenario;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// splitmix64: enough to pick mutations reproducibly.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "1e-300",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "65536",
    "1000000",
    "0.5",
];
const DURATIONS: &[&str] = &[
    "\"0s\"",
    "\"-1s\"",
    "\"1us\"",
    "\"0us\"",
    "\"1000000h\"",
    "\"9999999999999999999s\"",
    "\"1.5s\"",
    "\"s\"",
    "\"\"",
    "\"1ms\"",
    "\"10d\"",
];
const STRINGS: &[&str] = &[
    "\"\"",
    "\"zz\"",
    "\"n9999\"",
    "\"A\"",
    "\"n0\"",
    "\"S1\"",
    "\"dn1\"",
    "\"node1\"",
];

/// One random edit of `text`, and what it was.
fn mutate(g: &mut Gen, text: &str) -> (String, String) {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let i = g.below(lines.len());
    let what = match g.below(8) {
        0 => {
            let l = lines.remove(i);
            format!("deleted line {}: {l}", i + 1)
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l.clone());
            format!("duplicated line {}: {l}", i + 1)
        }
        2 => {
            let j = g.below(lines.len());
            lines.swap(i, j);
            format!("swapped lines {} and {}", i + 1, j + 1)
        }
        3 | 4 => {
            // A number (or a duration, a string) in a line, replaced.
            let l = &lines[i];
            let Some(eq) = l.find(['=', ',', '[', '{']) else {
                return (
                    lines.join("\n"),
                    format!("nothing changed (line {})", i + 1),
                );
            };
            let tail = &l[eq + 1..];
            let start = eq + 1 + tail.len() - tail.trim_start().len();
            let end = l[start..]
                .find([',', '}', ']', ' '])
                .map_or(l.len(), |k| start + k.max(1));
            let by = match g.below(3) {
                0 => g.pick(NUMBERS),
                1 => g.pick(DURATIONS),
                _ => g.pick(STRINGS),
            };
            let new = format!("{}{}{}", &l[..start], by, &l[end..]);
            let what = format!("line {}: {l} -> {new}", i + 1);
            lines[i] = new;
            what
        }
        5 => {
            // The file cut short.
            let cut = g.below(text.len());
            let cut = (0..=cut)
                .rev()
                .find(|&k| text.is_char_boundary(k))
                .unwrap_or(0);
            return (text[..cut].to_string(), format!("cut at byte {cut}"));
        }
        6 => {
            // Every occurrence of one number in the file.
            let nums: Vec<&str> = text
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .collect();
            if nums.is_empty() {
                return (text.to_string(), "nothing changed".into());
            }
            let n = nums[g.below(nums.len())];
            let by = g.pick(&["0", "1", "100000", "4294967295"]);
            return (text.replace(n, by), format!("every {n} -> {by}"));
        }
        _ => {
            // A key's value emptied.
            let l = &lines[i];
            match l.find('=') {
                Some(eq) => {
                    let new = format!(
                        "{}= {}",
                        &l[..eq],
                        g.pick(&["[]", "{}", "\"\"", "true", "0"])
                    );
                    let what = format!("line {}: {l} -> {new}", i + 1);
                    lines[i] = new;
                    what
                }
                None => format!("nothing changed (line {})", i + 1),
            }
        }
    };
    (lines.join("\n"), what)
}

/// How far the mutated files got: parsed, variants built, runs that ended without an error.
#[derive(Default, Debug)]
struct Reached {
    parsed: usize,
    built: usize,
    ran: usize,
}

/// Parse, build every variant and run it a few virtual seconds; `Err` only for a panic.
fn try_file(file: &str, text: &str, reached: &mut Reached) -> Result<(), String> {
    let limits = Limits::default();
    catch_unwind(AssertUnwindSafe(|| {
        let s = match Scenario::parse(file, text, &limits) {
            Ok(s) => s,
            Err(e) => {
                if std::env::var("CLUSTERSCOPE_MUTATIONS_SHOW").is_ok() {
                    println!("ERR {e}");
                }
                return;
            }
        };
        reached.parsed += 1;
        let until = s.duration().min(3_000_000);
        for v in s
            .variant_names()
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
        {
            let opts = RunOptions::default();
            if let Ok(mut run) = Run::new(s.clone(), &v, None, &toml::Table::new(), &opts) {
                reached.built += 1;
                reached.ran += run.run(Some(until)).is_ok() as usize;
            }
        }
    }))
    .map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into())
    })
}

#[test]
fn mutated_scenario_files_are_refused_or_run_never_a_panic() {
    let per_file: usize = std::env::var("CLUSTERSCOPE_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let mut g = Gen(0x21636);
    let mut failures = Vec::new();
    let mut tried = 0;
    let mut reached = Reached::default();
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (file, text) in FILES {
        for _ in 0..per_file {
            let (changed, what) = mutate(&mut g, text);
            tried += 1;
            if let Err(msg) = try_file(file, &changed, &mut reached) {
                failures.push(format!("{file}: {what}\n    panicked: {msg}"));
            }
        }
    }
    std::panic::set_hook(quiet);
    assert!(tried >= FILES.len() * per_file);
    eprintln!("{tried} mutated files: {reached:?}");
    // Most edits leave a file that still parses and runs: the runs, not only the parser, are
    // what this tries.
    assert!(
        reached.parsed * 5 > tried && reached.ran >= reached.parsed,
        "{reached:?} of {tried}"
    );
    assert!(
        failures.is_empty(),
        "{} of {tried} mutated files panicked:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
