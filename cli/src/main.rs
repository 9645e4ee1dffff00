//! `clusterscope`: run built-in or file scenarios headlessly, sweep seeds, list what is built in.
//!
//! Exit codes: 0 all expectations hold, 1 an expectation failed, 2 bad input (message on stderr).

mod claims;
mod diff_out;
mod hunt_out;
mod out_file;
mod params_out;
mod plot;
mod sweep_out;
mod trace_out;

use clap::{Parser, Subcommand, ValueEnum};
use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Report, Run, RunOptions};
use clusterscope_core::scenario::{builtin, parse_override, Scenario};
use clusterscope_core::sweep;
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

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum ClaimsFormat {
    Text,
    Md,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum SweepFormat {
    Text,
    Json,
    Csv,
}

/// How a sweep's or a merge's result is shown.
#[derive(clap::Args)]
struct Output {
    #[arg(long, value_enum, default_value = "text")]
    format: SweepFormat,
    /// Also draw the result: bars with 95% intervals (no grid or one --grid parameter) or a
    /// heatmap (two), as SVG or PNG by the file's extension.
    #[arg(long, value_name = "OUT.svg|OUT.png")]
    plot: Option<String>,
    /// What the plot shows per cell: `all` (every expectation held), a metric's name (seeds
    /// where it was > 0) or part of one expectation's name.
    #[arg(long, default_value = "all", value_name = "all|METRIC|EXPECTATION")]
    plot_of: String,
    /// Where the app is served, for the links to failing seeds.
    #[arg(long, default_value = "http://127.0.0.1:8080/")]
    base_url: String,
    /// Exit 1 when an expectation's observed fraction contradicts its claim: its 95% interval
    /// misses the declared `chance`, or, without one, 99%-100% (the scenario says "always").
    #[arg(long)]
    check: bool,
    /// Replace output files that exist (--plot, a shard's --out); a file the command reads
    /// is never replaced.
    #[arg(long)]
    force: bool,
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
        /// Override a parameter, e.g. --set echo=fixed --set request_timeout=30s
        /// (`clusterscope params NAME` lists them with their values, units and ranges).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Stop early at this virtual time (e.g. 90s); expectations due later are reported as not reached.
        #[arg(long)]
        until: Option<String>,
        /// Write every trace event as one JSON object per line.
        #[arg(long, value_name = "FILE.jsonl")]
        trace: Option<String>,
        /// Replace the --trace file if it exists (the scenario file is never replaced).
        #[arg(long)]
        force: bool,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// List the scenario's model parameters: the value a run of this variant uses (after the
    /// preset, [params] and --set), where it comes from, its unit, valid range and meaning.
    Params {
        /// A built-in scenario name, or a path to a .toml scenario file.
        scenario: String,
        #[arg(long)]
        variant: Option<String>,
        /// Override a parameter, as for `run` (shows the value it would take, or refuses it).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Run many seeds in parallel and report how often each expectation held, optionally over
    /// a grid of parameter values, or one shard of that for a scheduler.
    Sweep {
        scenario: String,
        #[arg(long, default_value_t = 100)]
        seeds: u64,
        #[arg(long, default_value_t = 1)]
        first_seed: u64,
        /// Worker threads, 1 to 256 (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
        #[arg(long)]
        variant: Option<String>,
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Sweep a parameter over values: --grid client_rate=10,20,50 (two --grid: every pair).
        #[arg(long = "grid", value_name = "KEY=V1,V2,...")]
        grid: Vec<String>,
        /// Run only shard I of N (0-based: 0/4 .. 3/4) and write a part for `clusterscope merge`.
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// Where a shard writes its part (default: standard output).
        #[arg(long, value_name = "PART.json")]
        out: Option<String>,
        /// Stop each seed early at this virtual time (e.g. 30s); expectations due later are
        /// reported as not reached.
        #[arg(long)]
        until: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Run two variants of one scenario and seed side by side: where do they first differ, and
    /// which views differ at the end? Exit 0 when they never diverge, 1 when they do.
    Diff {
        scenario: String,
        /// Two variants, comma-separated: --variants buggy,fixed
        #[arg(long, value_name = "A,B")]
        variants: String,
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Compare up to this virtual time (default: the scenario's end).
        #[arg(long)]
        until: Option<String>,
        /// How many differing views to list.
        #[arg(long, default_value_t = 20)]
        views: usize,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Sweep every built-in scenario x variant (or the named ones) over seeds 1..N and check
    /// each expectation's claim: its `chance`, or "always" (99-100%) without one. One line per
    /// variant; `--format md` prints the table of docs/SCENARIOS.md.
    Claims {
        /// Built-in scenario names (default: all).
        scenarios: Vec<String>,
        #[arg(long, default_value_t = 20)]
        seeds: u64,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
        #[arg(long, value_enum, default_value = "text")]
        format: ClaimsFormat,
        /// Exit 1 when a claim is contradicted or a run errors.
        #[arg(long)]
        check: bool,
    },
    /// Search seeds and fault schedules for a run where an expectation fails or an invariant
    /// breaks, shrink it, write it as a scenario (docs/HUNTING.md). Exit 1 when found, 0 when
    /// the budget ran out without one.
    Hunt(hunt_out::HuntArgs),
    /// Combine the parts of a sharded sweep (or hunt) into the result one unsharded sweep prints.
    Merge {
        /// The parts (`clusterscope sweep ... --shard I/N --out part-I.json`).
        #[arg(required = true)]
        parts: Vec<String>,
        /// Merge what is there even when parts are missing (the result says how many runs).
        #[arg(long)]
        partial: bool,
        #[command(flatten)]
        output: Output,
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

/// A report with its views (the last field of `Report`, null there) written from the run one
/// key at a time (`Run::views_json_keys`): the same JSON as the report with `views` filled.
#[derive(serde::Serialize)]
struct WithViews<'a> {
    #[serde(flatten)]
    report: &'a clusterscope_core::runner::Report,
    views: Views<'a>,
}

struct Views<'a> {
    run: &'a Run,
    keys: &'a [String],
}

impl serde::Serialize for Views<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.keys.len()))?;
        for k in self.keys {
            m.serialize_entry(k, &self.run.views_json_entry(k))?;
        }
        m.end()
    }
}

/// `value` as pretty JSON and a newline on stdout, as `emit` writes text (a closed pipe is not
/// an error), without building the string first.
fn emit_json<T: serde::Serialize>(value: &T) -> Result<(), Bad> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let r = serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match r {
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
        let _ = match (e.passed, &e.chance) {
            (true, _) => writeln!(o, "  PASS {} -- {}", e.name, e.detail),
            (false, None) => writeln!(o, "  FAIL {} -- {}", e.name, e.detail),
            (false, Some(_)) => writeln!(o, "  ---- {} -- {}: {}", e.name, e.verdict(), e.detail),
        };
    }
    for f in &r.skipped {
        let _ = writeln!(o, "  FAIL {f}");
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
        Cmd::Params {
            scenario,
            variant,
            set,
            format,
        } => {
            let s = load(&scenario)?;
            let variant = variant.unwrap_or_else(|| Run::default_variant(&s));
            let set = overrides(&set)?;
            let out = match format {
                Format::Text => params_out::text(&s, &variant, &set),
                Format::Json => params_out::json(&s, &variant, &set),
            }
            .map_err(Bad)?;
            emit(&out)?;
            Ok(true)
        }
        Cmd::Run {
            scenario,
            variant,
            seed,
            set,
            until,
            trace,
            force,
            format,
        } => {
            let inputs = input_files(&[&scenario]);
            let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
            let trace = trace.as_deref().map(|path| out_file::Target {
                flag: "--trace",
                path,
                force,
                inputs: &inputs,
            });
            if let Some(t) = &trace {
                t.check().map_err(Bad)?;
            }
            let s = load(&scenario)?;
            let variant = variant.unwrap_or_else(|| Run::default_variant(&s));
            let opts = RunOptions {
                body_budget: if trace.is_some() { usize::MAX } else { 0 },
                limits: cli_limits()?,
                ..RunOptions::default()
            };
            let mut run = Run::new(s, &variant, seed, &overrides(&set)?, &opts).map_err(Bad)?;
            // Without --trace nothing reads the records (the report has the hash, the views
            // read the state): hash them, keep none, unless an expectation reads messages or
            // log lines (issue 44: the 120 s RaftScope run's 28 MiB trace, ~15% of its CPU).
            if trace.is_none() {
                run.keep_records_only_if_needed();
            }
            let mut report = run.run(until_of(&until)?).map_err(|e| Bad(e.to_string()))?;
            if let Some(t) = &trace {
                trace_out::write(&run, t).map_err(Bad)?;
            }
            // Issue 44: the 120 s Raft run of benches/raftscope peaked at 117 MB with --format
            // json, the views (every node's full log as a `serde_json::Value`) built whole next
            // to the run. When the model builds them one node at a time, they are written so,
            // straight to stdout: the same bytes, one node's views alive at a time, the run's trace
            // freed first (110 -> 50 MiB). Otherwise the whole run is freed before the whole views
            // are written.
            if matches!(format, Format::Json) {
                if let Some(keys) = run.views_json_keys() {
                    run.drop_history();
                    emit_json(&WithViews {
                        report: &report,
                        views: Views {
                            run: &run,
                            keys: &keys,
                        },
                    })?;
                    return Ok(report.passed);
                }
                report.views = run.views_json();
            }
            match format {
                Format::Json => {
                    drop(run);
                    emit_json(&report)?
                }
                Format::Text => {
                    // The process ends after this small report: its memory goes back whole, so
                    // freeing the run's every log entry and table first (issue 44: ~1.7% of the
                    // 120 s RaftScope run's instructions) is work nobody reads.
                    std::mem::forget(run);
                    emit(&print_text(&report))?
                }
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
            grid,
            shard,
            out,
            until,
            output,
        } => {
            sweep_flags(shard.is_some(), out.as_deref(), &output)?;
            // Outputs first: a sweep does not end in a file it may not write.
            let inputs = input_files(&[&scenario]);
            let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
            let target = |flag, path| out_file::Target {
                flag,
                path,
                force: output.force,
                inputs: &inputs,
            };
            let out = out.as_deref().map(|p| target("--out", p));
            let plot_to = output.plot.as_deref().map(|p| target("--plot", p));
            for t in out.iter().chain(&plot_to) {
                t.check().map_err(Bad)?;
            }
            let s = load(&scenario)?;
            let variant = variant.unwrap_or_else(|| Run::default_variant(&s));
            let ov = overrides(&set)?;
            let limits = cli_limits()?;
            let grid = grid
                .iter()
                .map(|g| sweep::Axis::parse(g))
                .collect::<Result<Vec<_>, _>>()
                .map_err(Bad)?;
            let plan = sweep::Plan::new(
                &s,
                &variant,
                first_seed,
                seeds,
                &ov,
                grid,
                until_of(&until)?,
            )
            .map_err(Bad)?;
            // Fail fast on bad parameters (of any cell) before spawning workers.
            let mut metrics = Vec::new();
            for c in 0..plan.cells() {
                let run = Run::new(
                    s.clone(),
                    &variant,
                    Some(first_seed),
                    &plan.overrides(c),
                    &RunOptions {
                        limits: limits.clone(),
                        ..RunOptions::default()
                    },
                )
                .map_err(|e| match plan.cell_label(c) {
                    l if l.is_empty() => Bad(e),
                    l => Bad(format!("--grid cell {l}: {e}")),
                })?;
                metrics.extend(run.metrics().into_keys());
            }
            metrics.sort_unstable();
            metrics.dedup();
            let names = sweep::expectation_names(&s, &variant).map_err(Bad)?;
            // ...and on a plot that could not be drawn: a long sweep should not end in one.
            if let Some(path) = &output.plot {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let metrics: Vec<&str> = metrics.iter().map(String::as_str).collect();
                plot::precheck(path, plan.grid.len(), &output.plot_of, &names, &metrics)
                    .map_err(Bad)?;
            }
            let threads = threads(jobs)?;
            let shard = shard.as_deref().map(parse_shard).transpose()?;
            let ids: Vec<u64> = match shard {
                Some((i, n)) => plan.shard(i, n).collect(),
                None => (0..plan.jobs()).collect(),
            };
            let outcomes = sweep_out::run_jobs(&s, &plan, &ids, threads, &limits);
            let mut part = sweep::Partial::new(plan, names, outcomes);
            part.chances = sweep::expectation_chances(&s, &variant).map_err(Bad)?;
            if shard.is_some() {
                let json = serde_json::to_string(&part).expect("json") + "\n";
                match out {
                    Some(t) => t.write(json.as_bytes()).map_err(Bad)?,
                    None => emit(&json)?,
                }
                return Ok(true);
            }
            let links = sweep_out::Links {
                scenario: Some(&s),
                builtin: !Path::new(&scenario).exists() && !scenario.ends_with(".toml"),
                base_url: &output.base_url,
                spec: &scenario,
            };
            show_sweep(&part, &output, plot_to.as_ref(), &links)
        }
        Cmd::Diff {
            scenario,
            variants,
            seed,
            set,
            until,
            views,
            format,
        } => {
            let s = load(&scenario)?;
            let vs: Vec<&str> = variants.split(',').map(str::trim).collect();
            let [va, vb] = vs[..] else {
                let names = s.variant_names();
                return Err(Bad(match &names[..] {
                    [a, b, ..] => {
                        format!("--variants {variants}: name two variants, e.g. --variants {a},{b}")
                    }
                    [one] => format!(
                        "--variants {variants}: {} has one variant ({one}), so there is no other \
                         to compare it with; `clusterscope run --set key=value` runs it with other \
                         parameters",
                        s.raw.name
                    ),
                    [] => format!(
                        "--variants {variants}: {} has no variants to compare",
                        s.raw.name
                    ),
                }));
            };
            let ov = overrides(&set)?;
            let opts = RunOptions {
                body_budget: 0,
                limits: cli_limits()?,
                ..RunOptions::default()
            };
            let mut a = Run::new(s.clone(), va, seed, &ov, &opts).map_err(Bad)?;
            let mut b = Run::new(s.clone(), vb, seed, &ov, &opts).map_err(Bad)?;
            let end = until_of(&until)?.unwrap_or(s.duration()).min(s.duration());
            // Each side's expectations as `run` checks them; the first divergence found in
            // lockstep on two fresh runs of the same inputs.
            let fresh = (
                Run::new(s.clone(), va, seed, &ov, &opts).map_err(Bad)?,
                Run::new(s.clone(), vb, seed, &ov, &opts).map_err(Bad)?,
            );
            let (first, ra, rb) = clusterscope_core::diff::compare(&mut a, &mut b, fresh, end)
                .map_err(|e| Bad(e.to_string()))?;
            let (diffs, total) =
                clusterscope_core::diff::view_diffs(&a.views_json(), &b.views_json(), 6, views);
            let held = |r: &Report| {
                format!(
                    "{}/{} expectations hold",
                    r.expectations.iter().filter(|e| e.passed).count(),
                    r.expectations.len()
                )
            };
            match format {
                Format::Json => emit(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "scenario": s.raw.name, "seed": a.seed, "variants": [va, vb],
                        "until_us": end, "first_divergence": first,
                        "views_differing": total, "views": diffs,
                        "expectations": [ra.expectations, rb.expectations],
                    }))
                    .expect("json")
                ))?,
                Format::Text => {
                    use std::fmt::Write;
                    let mut o = String::new();
                    let _ = writeln!(o, "{} seed {}: {va} vs {vb}", s.raw.name, a.seed);
                    match &first {
                        None => {
                            let _ = writeln!(
                                o,
                                "  no divergence up to {}: every record is the same",
                                fmt_time(end)
                            );
                        }
                        Some(d) => diff_out::diff_text(&mut o, d, va, vb),
                    }
                    let _ = writeln!(
                        o,
                        "  at {}: {total} view value(s) differ{}",
                        fmt_time(end),
                        if total > diffs.len() {
                            format!(" (the first {} listed)", diffs.len())
                        } else {
                            String::new()
                        }
                    );
                    for d in &diffs {
                        let _ = writeln!(o, "    {}: {} vs {}", d.path, d.a, d.b);
                    }
                    let _ = writeln!(o, "  {va}: {}; {vb}: {}", held(&ra), held(&rb));
                    emit(&o)?;
                }
            }
            Ok(first.is_none())
        }
        Cmd::Claims {
            scenarios,
            seeds,
            jobs,
            format,
            check,
        } => {
            let threads = threads(jobs)?;
            let limits = Limits::default();
            let mut rows = Vec::new();
            for s in claims::scenarios(&scenarios).map_err(Bad)? {
                for v in s.variant_names() {
                    let row = claims::check(&s, v, seeds, threads, &limits).map_err(Bad)?;
                    if format == ClaimsFormat::Text {
                        emit(&claims::text(std::slice::from_ref(&row)))?;
                    }
                    rows.push(row);
                }
            }
            if format == ClaimsFormat::Md {
                emit(&claims::markdown(&rows, seeds))?;
            }
            let bad = rows
                .iter()
                .filter(|r| r.contradicted() > 0 || r.errored() > 0)
                .count();
            if bad > 0 {
                eprintln!(
                    "{bad} of {} variants contradict a claim or errored",
                    rows.len()
                );
            }
            Ok(!check || bad == 0)
        }
        Cmd::Hunt(args) => hunt_out::hunt(args),
        Cmd::Merge {
            parts,
            partial,
            output,
        } => {
            if let Some(r) = hunt_out::try_merge(&parts, &output.base_url)? {
                return Ok(r);
            }
            let inputs: Vec<&str> = parts.iter().map(String::as_str).collect();
            let plot_to = output.plot.as_deref().map(|path| out_file::Target {
                flag: "--plot",
                path,
                force: output.force,
                inputs: &inputs,
            });
            if let Some(t) = &plot_to {
                t.check().map_err(Bad)?;
            }
            let mut read = Vec::new();
            for f in &parts {
                let text = read_part(f)?;
                read.push((f.clone(), sweep::Partial::from_json(f, &text).map_err(Bad)?));
            }
            let part = sweep::merge(read, !partial).map_err(Bad)?;
            // Links open a built-in scenario by name when the parts were made from it.
            let builtin = builtin::get(&part.plan.scenario)
                .ok()
                .filter(|b| sweep::digest(b).as_ref() == Ok(&part.plan.scenario_digest));
            let spec = part.plan.scenario.clone();
            let links = sweep_out::Links {
                scenario: builtin.as_ref(),
                builtin: builtin.is_some(),
                base_url: &output.base_url,
                spec: &spec,
            };
            show_sweep(&part, &output, plot_to.as_ref(), &links)
        }
    }
}

/// The files among `specs` (a scenario may be a built-in's name): what a command reads, never
/// to be overwritten by its outputs.
fn input_files(specs: &[&str]) -> Vec<String> {
    specs
        .iter()
        .filter(|s| Path::new(s).exists())
        .map(|s| s.to_string())
        .collect()
}

/// A part's text, refused by its size before it is read, and read through a limit (a pipe or a
/// growing file cannot pass it either).
fn read_part(f: &str) -> Result<String, Bad> {
    use clusterscope_core::limits::MAX_PART_BYTES as MAX;
    use std::io::Read;
    let too_big = |size: String| {
        Bad(format!(
            "{f}: {size} bytes; a sweep part is at most {MAX} bytes (limits::MAX_PART_BYTES): \
             split the sweep into more shards (--shard I/N with a larger N)"
        ))
    };
    let file = std::fs::File::open(f).map_err(|e| Bad(format!("{f}: cannot read: {e}")))?;
    if let Some(len) = file.metadata().ok().map(|m| m.len()).filter(|&n| n > MAX) {
        return Err(too_big(len.to_string()));
    }
    let mut bytes = Vec::new();
    file.take(MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Bad(format!("{f}: cannot read: {e}")))?;
    if bytes.len() as u64 > MAX {
        return Err(too_big(format!("more than {MAX}")));
    }
    String::from_utf8(bytes).map_err(|e| {
        Bad(format!(
            "{f}: not a sweep part (written by `clusterscope sweep --shard i/n`): not UTF-8 at \
             byte {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Most worker threads of one sweep.
const MAX_JOBS: usize = 256;

/// `--jobs`: 1 to `MAX_JOBS` threads; without it, one per core (at most `MAX_JOBS`).
fn threads(jobs: Option<usize>) -> Result<usize, Bad> {
    match jobs {
        Some(j) if !(1..=MAX_JOBS).contains(&j) => Err(Bad(format!(
            "--jobs {j}: use 1 to {MAX_JOBS} (without --jobs: one per core)"
        ))),
        Some(j) => Ok(j),
        None => Ok(std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_JOBS)),
    }
}

/// Flags that mean nothing together, refused before anything runs: a shard writes a part for
/// `clusterscope merge` (the merge formats and plots the result), and only a shard writes to
/// `--out`.
fn sweep_flags(shard: bool, out: Option<&str>, output: &Output) -> Result<(), Bad> {
    if shard {
        if let Some(plot) = &output.plot {
            return Err(Bad(format!(
                "--plot {plot} with --shard: a shard writes a part, not a result; plot the merged \
                 parts instead: clusterscope merge part-*.json --plot {plot}"
            )));
        }
        if output.format != SweepFormat::Text {
            return Err(Bad(
                "--format with --shard: a shard always writes its part as JSON; give --format to \
                 the merge instead: clusterscope merge part-*.json --format ..."
                    .into(),
            ));
        }
    } else if let Some(path) = out {
        return Err(Bad(format!(
            "--out {path} without --shard: only a shard writes a part; a whole sweep prints its \
             result (redirect it: --format json > result.json)"
        )));
    }
    Ok(())
}

/// `flag PATH` names a file in a folder that exists, checked before a sweep runs so that its
/// result is not lost at the end.
fn check_folder(flag: &str, path: &str) -> Result<(), String> {
    match Path::new(path).parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => Err(format!(
            "{flag} {path}: there is no folder {}; create it or name another",
            dir.display()
        )),
        _ => Ok(()),
    }
}

/// `I/N` with 0 <= I < N.
fn parse_shard(v: &str) -> Result<(u64, u64), Bad> {
    let bad = || {
        Bad(format!(
            "--shard {v}: expected I/N with 0 <= I < N, e.g. 0/4 (Kubernetes: \
             $JOB_COMPLETION_INDEX/N; Slurm: $SLURM_ARRAY_TASK_ID/N with --array=0-(N-1))"
        ))
    };
    let (i, n) = v.split_once('/').ok_or_else(bad)?;
    let (i, n): (u64, u64) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n || n > 100_000 {
        return Err(bad());
    }
    Ok((i, n))
}

/// Print a complete sweep's result in the chosen format, and plot it. Exit 2 when no run of
/// the sweep could run at all.
fn show_sweep(
    part: &sweep::Partial,
    output: &Output,
    plot_to: Option<&out_file::Target>,
    links: &sweep_out::Links,
) -> Result<bool, Bad> {
    let summary = sweep::summarize(part);
    match output.format {
        SweepFormat::Json => emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&summary).expect("json")
        ))?,
        SweepFormat::Csv => emit(&sweep_out::print_csv(&summary))?,
        SweepFormat::Text => emit(&sweep_out::print_text(&summary, part, links))?,
    }
    // After the result is out: a plot that cannot be drawn does not cost the runs.
    if let Some(t) = plot_to {
        let what = plot::Measure::parse(&summary, &output.plot_of).map_err(Bad)?;
        let bytes = plot::render(&summary, t.path, &what).map_err(Bad)?;
        t.write(&bytes).map_err(Bad)?;
    }
    let wrong = summary.contradictions();
    if !wrong.is_empty() {
        eprintln!(
            "{} expectation(s) contradict their claim (--check makes this exit 1):",
            wrong.len()
        );
        for (cell, e) in &wrong {
            eprintln!(
                "  {}{}: held in {}/{} (95% CI {:.1}-{:.1}%), claims {}",
                if cell.is_empty() {
                    String::new()
                } else {
                    format!("[{cell}] ")
                },
                e.name,
                e.held.count,
                e.held.runs,
                e.held.ci95_low * 100.0,
                e.held.ci95_high * 100.0,
                e.chance.map_or("99-100% (always)".into(), |c| c.short()),
            );
        }
    }
    if summary.completed() == 0 {
        let first = summary
            .cells
            .iter()
            .flat_map(|c| c.errors.iter())
            .next()
            .map_or("", |e| e.as_str());
        return Err(Bad(format!(
            "every one of the {} runs failed to run; the first: {first}",
            part.outcomes.len()
        )));
    }
    Ok(!output.check || wrong.is_empty())
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
