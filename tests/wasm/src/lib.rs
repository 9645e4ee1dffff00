//! Golden trace hashes: the same runs must give the same hash natively and in the browser.
//!
//! `tests/golden/pingpong_hashes.txt` holds one case per line, `name seed hash` (hash as 16 hex
//! digits), with `#` comments and blank lines allowed. The same file is compiled into both the
//! native test and the wasm test (`include_str!`), so a mismatch between targets cannot hide.
//!
//! A case's *name prefix* selects how it is run (see [`hash_of`]). Lines with a prefix this
//! crate does not know are skipped, so other crates may keep their own cases in the same file.

use clusterscope_core::engine::action::Action;
use clusterscope_core::engine::network::Link;
use clusterscope_core::limits::Limits;
use clusterscope_core::pingpong::{self, PingPong};
use clusterscope_core::time::Micros;
use clusterscope_core::{Engine, Sim};

/// The golden file, compiled in (path relative to this file).
pub const GOLDEN: &str = include_str!("../../golden/pingpong_hashes.txt");

/// One line of the golden file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub seed: u64,
    pub hash: u64,
    /// 1-based line number in the golden file, for error messages.
    pub line: usize,
}

/// Parse the golden file. Panics with the line number on a malformed line (it is our own file).
pub fn parse(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        assert!(
            f.len() == 3,
            "golden line {}: expected `name seed hash`, got {line:?}",
            i + 1
        );
        let seed = f[1]
            .parse()
            .unwrap_or_else(|e| panic!("golden line {}: bad seed {:?}: {e}", i + 1, f[1]));
        let hash = u64::from_str_radix(f[2].trim_start_matches("0x"), 16)
            .unwrap_or_else(|e| panic!("golden line {}: bad hash {:?}: {e}", i + 1, f[2]));
        cases.push(Case {
            name: f[0].to_string(),
            seed,
            hash,
            line: i + 1,
        });
    }
    cases
}

/// Format one golden line.
pub fn format_line(name: &str, seed: u64, hash: u64) -> String {
    format!("{name} {seed} {hash:016x}")
}

/// **Extension point.** Run the case `name` with `seed` and return its trace hash, or `None`
/// when the name's prefix is not known here (the line is then skipped, not failed).
///
/// To add a family of cases (e.g. `scenario-<file>` for the incident scenarios), add a match arm
/// on its prefix that builds and runs the engine and returns `Some(e.sim.hash.0)`, then append
/// lines to the golden file (generate them natively with `CLUSTERSCOPE_BLESS=1`, see
/// `tests/golden.rs`).
pub fn hash_of(name: &str, seed: u64) -> Option<u64> {
    if let Some(rest) = name.strip_prefix("pingpong-") {
        return Some(pingpong_hash(rest, seed));
    }
    if let Some(rest) = name.strip_prefix("scenario:") {
        return Some(scenario_hash(rest, seed));
    }
    None
}

/// Scenario cases run this much virtual time (or the whole scenario if shorter): enough to
/// exercise faults and randomness, short enough for the browser test.
pub const SCENARIO_SPAN_US: Micros = 120_000_000;

/// `scenario:<built-in name>:<variant>`: run the built-in scenario and return its trace hash.
pub fn scenario_hash(spec: &str, seed: u64) -> u64 {
    use clusterscope_core::runner::{Run, RunOptions};
    let (name, variant) = spec
        .split_once(':')
        .unwrap_or_else(|| panic!("scenario case \"{spec}\": want name:variant"));
    let s = clusterscope_core::scenario::builtin::get(name).unwrap_or_else(|e| panic!("{e}"));
    let until = s.duration().min(SCENARIO_SPAN_US);
    let opts = RunOptions {
        body_budget: 0,
        ..RunOptions::default()
    };
    let mut r = Run::new(s, variant, Some(seed), &toml::Table::new(), &opts)
        .unwrap_or_else(|e| panic!("{spec}: {e}"));
    r.engine
        .run_until(until, u64::MAX)
        .unwrap_or_else(|e| panic!("{spec}: {e}"));
    r.engine.hash().0
}

/// Every built-in scenario x variant, as golden case names.
pub fn scenario_cases() -> Vec<String> {
    clusterscope_core::scenario::builtin::all()
        .iter()
        .flat_map(|s| {
            s.variant_names()
                .into_iter()
                .map(move |v| format!("scenario:{}:{v}", s.raw.name))
        })
        .collect()
}

/// Names of all pingpong cases this crate knows (the ones `CLUSTERSCOPE_BLESS=1` writes).
pub const PINGPONG_CASES: &[&str] = &["pingpong-ring5", "pingpong-worker7", "pingpong-faults6"];

/// Seeds written for every pingpong case when blessing.
pub const PINGPONG_SEEDS: &[u64] = &[1, 42, 0xC0FFEE];

const HEALTHY_MIN_US: Micros = 500;
const HEALTHY_MAX_US: Micros = 1_500;

fn pp() -> PingPong {
    PingPong {
        use_worker: false,
        work_us: 1_000,
        deadline_us: None,
        random_target: false,
        serve_on_tick: false,
    }
}

fn node(i: u32) -> String {
    format!("n{i}")
}

/// The pingpong variants, by the part of the name after `pingpong-`.
fn pingpong_hash(variant: &str, seed: u64) -> u64 {
    let (proto, n, schedule, until_us) = match variant {
        // Plain ring: one ball per node passed to the next one.
        "ring5" => (pp(), 5, vec![], 2_000_000),
        // Worker executor with a deadline and random targets (exercises node RNG streams).
        "worker7" => (
            PingPong {
                use_worker: true,
                deadline_us: Some(20_000),
                random_target: true,
                ..pp()
            },
            7,
            vec![],
            2_000_000,
        ),
        // Network RNG (loss), partitions and restarts.
        "faults6" => (
            PingPong {
                random_target: true,
                serve_on_tick: true,
                ..pp()
            },
            6,
            vec![
                (
                    100_000,
                    Action::SetLoss {
                        from: node(0),
                        to: node(1),
                        loss: 0.3,
                        one_way: false,
                    },
                ),
                (
                    500_000,
                    Action::Partition {
                        groups: vec![
                            vec![node(0), node(1), node(2)],
                            vec![node(3), node(4), node(5)],
                        ],
                        down_for: None,
                    },
                ),
                (
                    1_000_000,
                    Action::Restart {
                        node: node(4),
                        kill: true,
                        down_for: None,
                    },
                ),
                (1_500_000, Action::HealAll {}),
            ],
            3_000_000,
        ),
        other => panic!("unknown pingpong case \"pingpong-{other}\"; known: {PINGPONG_CASES:?}"),
    };
    let sim = Sim::new(
        proto,
        pingpong::topology(n),
        Link::healthy(HEALTHY_MIN_US, HEALTHY_MAX_US),
        seed,
        schedule,
        Limits::default(),
    );
    let mut e = Engine::new(sim, true, 1 << 20);
    e.run_until(until_us, 10_000_000)
        .unwrap_or_else(|err| panic!("pingpong-{variant} seed {seed}: {err}"));
    e.sim.hash.0
}

/// Check every known case of the golden file; returns how many were checked. Collects all
/// mismatches before failing so one run shows every drifted case.
pub fn check_golden(text: &str) -> usize {
    let mut checked = 0;
    let mut bad = Vec::new();
    for c in parse(text) {
        let Some(got) = hash_of(&c.name, c.seed) else {
            continue;
        };
        checked += 1;
        if got != c.hash {
            bad.push(format!(
                "line {}: {} seed {}: expected {:016x}, got {got:016x}",
                c.line, c.name, c.seed, c.hash
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "trace hashes differ from tests/golden/pingpong_hashes.txt \
         (regenerate natively with CLUSTERSCOPE_BLESS=1 if the change is intended):\n{}",
        bad.join("\n")
    );
    checked
}
