//! A hunt's plan: which faults it may draw ([`Kind`]), how long it searches ([`Budget`]), what
//! counts as a failure ([`Target`]), and the whole [`Plan`] that numbers its candidate runs.

use super::*;
/// Most faults one generated candidate has by default (each a fault and, for most kinds, its
/// undo); `--max-faults` changes it.
pub const MAX_FAULTS: usize = 6;
/// The most `--max-faults` allows.
pub const MAX_FAULTS_LIMIT: usize = 64;
/// Default bound of the re-runs a shrink spends on the found seed (the seed shrink may spend
/// up to five times as many again: [`most_reruns`]).
pub const SHRINK_RERUNS: u32 = 400;
/// Most candidate runs one hunt may have.
pub const MAX_RUNS: u64 = 100_000_000;

/// A kind of fault the generator may draw (`--faults drop,loss,...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A link cut (both ways or one way), healed later.
    Drop,
    /// A lossy link (5% to 80%), healed later.
    Loss,
    /// The cluster split in two groups, healed later (`heal-all`).
    Partition,
    /// A slow link (latency up to 2 s), healed later.
    Delay,
    /// A node restarted, gracefully or kill -9, down for a while.
    Restart,
    /// A node killed (kill -9) and started later.
    Kill,
    /// One of a node's threads (executors) stalled, released later.
    Stall,
    /// One of the model's node commands (gossip: `disablegossip`...; raft: `timeout`,
    /// `client-put`...), where the node accepts it.
    Command,
    /// A fault aimed at the node that leads when it fires (models with a leader: Raft, Ozone's
    /// pipelines): restarted, killed and started later, cut off from the rest (healed later),
    /// or one of the model's commands (Raft: a client write the leader appends).
    Leader,
}

// `Kind::ALL_BUT_LEADER` is `ALL` without its last kind.
const _: () = assert!(matches!(Kind::ALL[Kind::ALL.len() - 1], Kind::Leader));

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::Drop,
        Kind::Loss,
        Kind::Partition,
        Kind::Delay,
        Kind::Restart,
        Kind::Kill,
        Kind::Stall,
        Kind::Command,
        Kind::Leader,
    ];

    /// The preset `all`: every kind but `leader`, which is asked for by name (or by the `crash`
    /// preset), so that the hunts measured before it draw the same candidates.
    pub const ALL_BUT_LEADER: &[Kind] = Kind::ALL.split_at(Kind::ALL.len() - 1).0;

    pub fn name(self) -> &'static str {
        match self {
            Kind::Drop => "drop",
            Kind::Loss => "loss",
            Kind::Partition => "partition",
            Kind::Delay => "delay",
            Kind::Restart => "restart",
            Kind::Kill => "kill",
            Kind::Stall => "stall",
            Kind::Command => "command",
            Kind::Leader => "leader",
        }
    }

    /// Named sets of kinds `--faults` accepts beside the kinds themselves.
    pub const PRESETS: [(&'static str, &'static [Kind]); 4] = [
        ("all", Kind::ALL_BUT_LEADER),
        (
            // Faults that are all undone: for a target about recovery (a command has no undo).
            "recoverable",
            &[
                Kind::Drop,
                Kind::Loss,
                Kind::Partition,
                Kind::Delay,
                Kind::Restart,
                Kind::Kill,
                Kind::Stall,
            ],
        ),
        (
            "network",
            &[Kind::Drop, Kind::Loss, Kind::Partition, Kind::Delay],
        ),
        (
            // What a consensus bug needs: nodes crash and come back, leaders are cut off, and
            // the model's commands (Raft: elections and client writes) happen in between.
            "crash",
            &[
                Kind::Partition,
                Kind::Restart,
                Kind::Kill,
                Kind::Command,
                Kind::Leader,
            ],
        ),
    ];

    /// `drop,loss,partition` or presets (`network,kill`): known names, each kind once, at
    /// least one.
    pub fn parse_list(s: &str) -> Result<Vec<Kind>, String> {
        let mut out = Vec::new();
        for w in s.split(',').map(str::trim) {
            let ks: &[Kind] = match Kind::ALL.iter().position(|k| k.name() == w) {
                Some(i) => &Kind::ALL[i..=i],
                None => Kind::PRESETS
                    .iter()
                    .find(|(n, _)| *n == w)
                    .map(|(_, ks)| *ks)
                    .ok_or_else(|| {
                        format!(
                            "--faults {}: \"{}\" is not a fault kind; use some of: {} (or a \
                             preset: {})",
                            crate::text::clip(s, 80),
                            crate::text::clip(w, 40),
                            Kind::ALL.map(Kind::name).join(","),
                            Kind::PRESETS.map(|(n, _)| n).join(", ")
                        )
                    })?,
            };
            for k in ks {
                if out.contains(k) {
                    return Err(format!(
                        "--faults {}: \"{}\" is given twice",
                        crate::text::clip(s, 80),
                        k.name()
                    ));
                }
                out.push(*k);
            }
        }
        crate::small_sort::sort_by_key(&mut out, |k| *k);
        Ok(out)
    }
}

/// How long a hunt runs (`--budget`): a number of candidates (`10000runs` or `10000`: the same
/// result on every machine) or a wall-clock time (`60s`, `5m`: the CLI's clock, not core's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Runs(u64),
    Time(Micros),
}

impl Budget {
    pub fn parse(s: &str) -> Result<Budget, String> {
        let t = s.trim();
        let digits = t.strip_suffix("runs").unwrap_or(t).trim();
        if let Ok(n) = digits.parse::<u64>() {
            if n == 0 || n > MAX_RUNS {
                return Err(format!(
                    "--budget {}: use 1 to {MAX_RUNS} runs (or a time: 60s, 5m)",
                    crate::text::clip(s, 40)
                ));
            }
            return Ok(Budget::Runs(n));
        }
        match crate::time::parse_duration(t) {
            Ok(us) if us > 0 => Ok(Budget::Time(us)),
            _ => Err(format!(
                "--budget {}: expected a number of runs (10000runs) or a wall-clock time (60s, \
                 5m)",
                crate::text::clip(s, 40)
            )),
        }
    }
}

/// What the hunt looks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// The expectation of this name (the file's, the variant's or a caption's) does not hold.
    Expectation(String),
    /// A safety invariant of the model breaks (the `violations` metric is above 0).
    Invariants,
}

impl Target {
    pub fn describe(&self) -> String {
        match self {
            Target::Expectation(n) => format!("the expectation \"{n}\" fails"),
            Target::Invariants => "a safety invariant breaks".into(),
        }
    }
}

/// What a hunt runs. Two hunts with equal plans and spaces try equal candidates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub scenario: String,
    /// `sweep::digest` of the scenario: parts of different files do not merge.
    pub scenario_digest: String,
    pub variant: String,
    /// `--set` overrides (TOML text per key), applied to every run.
    #[serde(default)]
    pub set: BTreeMap<String, String>,
    pub target: Target,
    pub kinds: Vec<Kind>,
    pub hunt_seed: u64,
    /// Candidates `0..runs` (with a wall-clock budget in the CLI: the upper bound).
    pub runs: u64,
    /// Most re-runs the shrink may spend on the found seed (the whole shrink: [`most_reruns`]).
    pub shrink_reruns: u32,
    /// Most faults a candidate draws (`--max-faults`).
    #[serde(default = "default_max_faults")]
    pub max_faults: usize,
}

fn default_max_faults() -> usize {
    MAX_FAULTS
}

impl Plan {
    /// A plan, checked against the scenario: the variant exists, the target expectation is one
    /// of its expectations (the message lists them), `--invariants` only for a model that
    /// checks invariants, at least one fault kind, the runs within limits.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        scenario: &Scenario,
        variant: &str,
        set: &toml::Table,
        target: Target,
        kinds: Vec<Kind>,
        hunt_seed: u64,
        runs: u64,
        limits: &Limits,
    ) -> Result<Plan, String> {
        scenario.variant(variant)?;
        if runs == 0 || runs > MAX_RUNS {
            return Err(format!("--budget {runs}runs: use 1 to {MAX_RUNS} runs"));
        }
        if kinds.is_empty() {
            return Err("--faults: name at least one fault kind".into());
        }
        match &target {
            Target::Expectation(name) => {
                let names = crate::sweep::expectation_names(scenario, variant)?;
                if !names.iter().any(|n| n == name) {
                    return Err(format!(
                        "--break \"{}\": {} [{variant}] has no expectation of that name; it has: \
                         {}",
                        crate::text::clip(name, 80),
                        scenario.raw.name,
                        names
                            .iter()
                            .map(|n| format!("\"{n}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
            Target::Invariants => {
                let run = Run::new(
                    scenario.clone(),
                    variant,
                    None,
                    set,
                    &RunOptions {
                        body_budget: 0,
                        checkpointing: false,
                        limits: limits.clone(),
                    },
                )?;
                if !run.engine.checks_invariants() {
                    return Err(format!(
                        "--invariants: the {} model checks no safety invariants; name an \
                         expectation to break instead (--break \"NAME\")",
                        scenario.raw.protocol
                    ));
                }
            }
        }
        Ok(Plan {
            scenario: scenario.raw.name.clone(),
            scenario_digest: crate::sweep::digest(scenario)?,
            variant: variant.to_string(),
            set: set
                .iter()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect(),
            target,
            kinds,
            hunt_seed,
            runs,
            shrink_reruns: SHRINK_RERUNS,
            max_faults: MAX_FAULTS,
        })
    }

    /// Set `--max-faults` (1 to [`MAX_FAULTS_LIMIT`]).
    pub fn with_max_faults(mut self, n: usize) -> Result<Plan, String> {
        if !(1..=MAX_FAULTS_LIMIT).contains(&n) {
            return Err(format!(
                "--max-faults {n}: use 1 to {MAX_FAULTS_LIMIT} faults a run"
            ));
        }
        self.max_faults = n;
        Ok(self)
    }

    /// The `--set` overrides as a table.
    pub fn overrides(&self) -> toml::Table {
        let mut t = toml::Table::new();
        for (k, v) in &self.set {
            if let Ok((_, value)) = crate::scenario::parse_override(&format!("{k}={v}")) {
                t.insert(k.clone(), value);
            }
        }
        t
    }
}
