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
struct Bad(String);

fn load(spec: &str) -> Result<Scenario, Bad> {
    let path = Path::new(spec);
    if path.exists() || spec.ends_with(".toml") {
        let text =
            std::fs::read_to_string(path).map_err(|e| Bad(format!("{spec}: cannot read: {e}")))?;
        Scenario::parse(spec, &text, &Limits::default()).map_err(|e| Bad(e.to_string()))
    } else {
        builtin::get(spec).map_err(|e| Bad(e.to_string()))
    }
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

fn print_text(r: &Report) {
    println!("{} [{}] seed {}", r.scenario, r.variant, r.seed);
    println!(
        "  ran to {} in {} events, trace_hash {}",
        fmt_time(r.end_time_us),
        r.events,
        r.trace_hash
    );
    for e in &r.expectations {
        println!(
            "  {} {} -- {}",
            if e.passed { "PASS" } else { "FAIL" },
            e.name,
            e.detail
        );
    }
    let metrics: Vec<String> = r.metrics.iter().map(|(k, v)| format!("{k} {v}")).collect();
    println!("  metrics: {}", metrics.join(", "));
    println!(
        "{}",
        if r.passed {
            "all expectations hold"
        } else {
            "SOME EXPECTATIONS FAILED"
        }
    );
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
                println!("{}", serde_json::to_string_pretty(&v).expect("json"));
            } else {
                for s in &all {
                    println!("{:34} {}", s.raw.name, s.raw.title);
                    println!(
                        "{:34} {}, nodes {}, {}, variants: {}",
                        "",
                        s.raw.protocol,
                        s.topo.len(),
                        fmt_time(s.duration()),
                        s.variant_names().join(", ")
                    );
                }
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
                Format::Json => {
                    println!("{}", serde_json::to_string_pretty(&report).expect("json"))
                }
                Format::Text => print_text(&report),
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
                &RunOptions::default(),
            )
            .map_err(Bad)?;
            if seeds == 0 || seeds > 1_000_000 {
                return Err(Bad(format!("--seeds {seeds}: use 1 to 1000000")));
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
            )
            .map_err(Bad)?;
            match format {
                Format::Json => {
                    println!("{}", serde_json::to_string_pretty(&summary).expect("json"))
                }
                Format::Text => sweep::print_text(&summary),
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
