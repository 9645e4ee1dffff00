//! `clusterscope`: run built-in or file scenarios headlessly, sweep seeds, list what is built in.
//!
//! Exit codes: 0 all expectations hold, 1 an expectation failed, 2 bad input (message on stderr).

mod sweep;
mod trace_out;

use clap::{Parser, Subcommand, ValueEnum};
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Report, Run, RunOptions};
use clusterscope_core::scenario::{builtin, parse_override, Scenario};
use clusterscope_core::time::{fmt_time, parse_duration};
use std::path::Path;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "clusterscope",
    version,
    about = "Replay distributed-systems incidents deterministically"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the built-in scenarios, their titles and variants.
    List {
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Run one scenario variant and check its expectations.
    Run {
        /// A built-in scenario name, or a path to a .toml scenario file.
        scenario: String,
        #[arg(long)]
        variant: Option<String>,
        #[arg(long)]
        seed: Option<u64>,
        /// Override a parameter, e.g. --set echo=fixed --set request_timeout=30s.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Stop early at this virtual time (e.g. 90s); expectations due later are reported as not reached.
        #[arg(long)]
        until: Option<String>,
        /// Write every trace event as one JSON object per line.
        #[arg(long, value_name = "FILE.jsonl")]
        trace: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Run many seeds in parallel and report how often each expectation held.
    Sweep {
        scenario: String,
        #[arg(long, default_value_t = 100)]
        seeds: u64,
        #[arg(long, default_value_t = 1)]
        first_seed: u64,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
        #[arg(long)]
        variant: Option<String>,
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        #[arg(long)]
        until: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
}

/// Bad input: exit 2 with the message on stderr.
pub struct Bad(String);

fn load(spec: &str) -> Result<Scenario, Bad> {
    use std::io::Read;
    let path = Path::new(spec);
    if path.exists() || spec.ends_with(".toml") {
        let limits = Limits::default();
        // At most the limit and one byte: a bigger file (or /dev/zero) is refused by size
        // without reading it all.
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| {
                f.take(limits.max_scenario_bytes as u64 + 1)
                    .read_to_end(&mut bytes)
            })
            .map_err(|e| Bad(format!("{spec}: cannot read: {e}")))?;
        let text = clusterscope_core::text::scenario_text(spec, bytes, limits.max_scenario_bytes)
            .map_err(Bad)?;
        Scenario::parse(spec, &text, &limits).map_err(|e| Bad(e.to_string()))
    } else {
        builtin::get(spec).map_err(|e| Bad(e.to_string()))
    }
}

/// The limits of a CLI run: the defaults, with `CLUSTERSCOPE_MAX_MEMORY_MB` setting the memory
/// budget of each run (`Limits::max_memory_bytes`, 4 GiB by default).
pub fn cli_limits() -> Result<Limits, Bad> {
    let mut l = Limits::default();
    if let Ok(v) = std::env::var("CLUSTERSCOPE_MAX_MEMORY_MB") {
        let mb: usize = v.trim().parse().map_err(|_| {
            Bad(format!(
                "CLUSTERSCOPE_MAX_MEMORY_MB=\"{}\": expected a number of MiB",
                clusterscope_core::text::clip(&v, 20)
            ))
        })?;
        l.max_memory_bytes = mb.saturating_mul(1 << 20);
    }
    Ok(l)
}

fn overrides(set: &[String]) -> Result<toml::Table, Bad> {
    let mut t = toml::Table::new();
    for s in set {
        let (k, v) = parse_override(s).map_err(Bad)?;
        t.insert(k, v);
    }
    Ok(t)
}

fn until_of(u: &Option<String>) -> Result<Option<u64>, Bad> {
    u.as_ref()
        .map(|s| parse_duration(s).map_err(|e| Bad(format!("--until: {e}"))))
        .transpose()
}

/// Write to stdout; a closed pipe (`| head`, `| true`) ends the output quietly.
fn emit(text: &str) -> Result<(), Bad> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Bad(format!("cannot write the output: {e}")))
        }
        _ => Ok(()),
    }
}

fn print_text(r: &Report) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "{} [{}] seed {}", r.scenario, r.variant, r.seed);
    let _ = writeln!(
        o,
        "  ran to {} in {} events, trace_hash {}",
        fmt_time(r.end_time_us),
        r.events,
        r.trace_hash
    );
    for e in &r.expectations {
        let _ = writeln!(
            o,
            "  {} {} -- {}",
            if e.passed { "PASS" } else { "FAIL" },
            e.name,
            e.detail
        );
    }
    let metrics: Vec<String> = r.metrics.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(o, "  metrics: {}", metrics.join(", "));
    let _ = writeln!(
        o,
        "{}",
        if r.passed {
            "all expectations hold"
        } else {
            "SOME EXPECTATIONS FAILED"
        }
    );
    o
}

fn real_main(cli: Cli) -> Result<bool, Bad> {
    match cli.cmd {
        Cmd::List { format } => {
            let all = builtin::all();
            if format == Format::Json {
                let v: Vec<serde_json::Value> = all
                    .iter()
                    .map(|s| {
                        serde_json::json!({
                            "name": s.raw.name, "title": s.raw.title, "ticket": s.raw.ticket, "protocol": s.raw.protocol,
                            "nodes": s.topo.len(), "duration_us": s.duration(), "variants": s.variant_names(),
                        })
                    })
                    .collect();
                emit(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&v).expect("json")
                ))?;
            } else {
                let mut o = String::new();
                for s in &all {
                    o += &format!("{:34} {}\n", s.raw.name, s.raw.title);
                    o += &format!(
                        "{:34} {}, nodes {}, {}, variants: {}\n",
                        "",
                        s.raw.protocol,
                        s.topo.len(),
                        fmt_time(s.duration()),
                        s.variant_names().join(", ")
                    );
                }
                emit(&o)?;
            }
            Ok(true)
        }
        Cmd::Run {
            scenario,
            variant,
            seed,
            set,
            until,
            trace,
            format,
        } => {
            let s = load(&scenario)?;
            let variant = variant.unwrap_or_else(|| Run::default_variant(&s));
            let opts = RunOptions {
                body_budget: if trace.is_some() { usize::MAX } else { 0 },
                limits: cli_limits()?,
                ..RunOptions::default()
            };
            let mut run = Run::new(s, &variant, seed, &overrides(&set)?, &opts).map_err(Bad)?;
            let mut report = run.run(until_of(&until)?).map_err(|e| Bad(e.to_string()))?;
            if matches!(format, Format::Json) {
                report.views = run.views_json();
            }
            if let Some(path) = trace {
                trace_out::write(&run, &path).map_err(|e| Bad(format!("--trace {path}: {e}")))?;
            }
            match format {
                Format::Json => emit(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&report).expect("json")
                ))?,
                Format::Text => emit(&print_text(&report))?,
            }
            Ok(report.passed)
        }
        Cmd::Sweep {
            scenario,
            seeds,
            first_seed,
            jobs,
            variant,
            set,
            until,
            format,
        } => {
            let s = load(&scenario)?;
            let variant = variant.unwrap_or_else(|| Run::default_variant(&s));
            let ov = overrides(&set)?;
            // Fail fast on bad parameters before spawning workers.
            Run::new(
                s.clone(),
                &variant,
                Some(first_seed),
                &ov,
                &RunOptions {
                    limits: cli_limits()?,
                    ..RunOptions::default()
                },
            )
            .map_err(Bad)?;
            if seeds == 0 || seeds > 1_000_000 {
                return Err(Bad(format!("--seeds {seeds}: use 1 to 1000000")));
            }
            if first_seed.checked_add(seeds - 1).is_none() {
                return Err(Bad(format!(
                    "--first-seed {first_seed} with --seeds {seeds}: the last seed would pass \
                     2^64-1 ({}); use --first-seed {} or less",
                    u64::MAX,
                    u64::MAX - (seeds - 1)
                )));
            }
            let jobs = jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
                .clamp(1, 256);
            let summary = sweep::sweep(
                &s,
                &variant,
                &ov,
                first_seed,
                seeds,
                jobs,
                until_of(&until)?,
                &cli_limits()?,
            )
            .map_err(Bad)?;
            match format {
                Format::Json => emit(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&summary).expect("json")
                ))?,
                Format::Text => emit(&sweep::print_text(&summary))?,
            }
            if summary.all_passed.runs == 0 {
                return Err(Bad(format!(
                    "every one of the {seeds} seeds failed to run; the first: {}",
                    summary.errors.first().map_or("", |e| e.as_str())
                )));
            }
            Ok(true)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match real_main(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(Bad(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
    }
}
