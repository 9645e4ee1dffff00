//! Issue 39: nothing crashes, nothing is silently skipped: broken parts, outputs that would
//! overwrite inputs, write errors, cut plots, `diff`'s checks and errored seeds.

use super::*;

/// A small sweep (pingpong, 3 seeds, 2 s each).
const SMALL: &[&str] = &[
    "sweep", "pingpong", "--seeds", "3", "--until", "2s", "--jobs", "1",
];

/// Exit 2 (not a panic's 101), stderr naming every one of `want`.
fn exits_2_naming(a: assert_cmd::assert::Assert, want: &[&str]) -> String {
    let out = a.get_output();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for w in want {
        assert!(err.contains(w), "{w:?}: {err}");
    }
    err
}

/// A part whose plan, jobs or counts were edited (or cut) is refused before it is used, naming
/// the file and the field, instead of a panic (index out of bounds, division by zero) or a
/// summary of the wrong runs; a part over the size limit is refused before it is read.
#[test]
fn merge_refuses_broken_parts_naming_the_file_and_the_field() {
    let dir = tmp_dir("broken-parts");
    let good = dir.join("good.json");
    cs().args(SMALL)
        .args(["--shard", "0/1", "--out"])
        .arg(&good)
        .assert()
        .success();
    let part: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&good).unwrap()).unwrap();
    cs().arg("merge").arg(&good).assert().success();
    type Edit = dyn Fn(&mut serde_json::Value);
    let cases: &[(&str, &Edit, &[&str])] = &[
        (
            "job.json",
            &|v| v["outcomes"][1]["job"] = 7.into(),
            &["outcomes[1].job", "7", "0 to 2"],
        ),
        (
            "seeds.json",
            &|v| v["plan"]["seeds"] = 0.into(),
            &["plan.seeds"],
        ),
        (
            "grid.json",
            &|v| v["plan"]["grid"] = serde_json::json!([{"key": "work", "values": []}]),
            &["plan.grid[0].values"],
        ),
        (
            "wrap.json",
            &|v| v["plan"]["first_seed"] = u64::MAX.into(),
            &["plan.first_seed", "2^64"],
        ),
        (
            "held.json",
            &|v| v["outcomes"][0]["held"] = serde_json::json!([]),
            &["outcomes[0].held"],
        ),
        (
            "twice.json",
            &|v| v["outcomes"][1] = v["outcomes"][0].clone(),
            &["outcomes[1].job", "twice"],
        ),
    ];
    for (name, edit, want) in cases {
        let mut v = part.clone();
        edit(&mut v);
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        let a = cs().arg("merge").arg(&p).assert();
        exits_2_naming(
            a,
            &[*name]
                .iter()
                .chain(want.iter())
                .copied()
                .collect::<Vec<_>>(),
        );
    }
    // Too big: refused by its size, before a byte is read (a sparse file).
    let big = dir.join("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len((1 << 30) + 1).unwrap();
    drop(f);
    let a = cs()
        .arg("merge")
        .arg(&good)
        .arg(&big)
        .timeout(std::time::Duration::from_secs(20))
        .assert();
    exits_2_naming(a, &["big.json", "1073741825 bytes", "1073741824"]);
    std::fs::remove_file(&big).unwrap();
}

/// No command overwrites a file it reads, and an existing output file is replaced only with
/// --force: `sweep my.toml --shard 0/1 --out my.toml` used to replace the scenario by its part.
#[test]
fn outputs_never_overwrite_inputs_and_existing_files_need_force() {
    let dir = tmp_dir("overwrite");
    let toml = dir.join("my.toml");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenarios/pingpong.toml"
    ))
    .unwrap();
    std::fs::write(&toml, &text).unwrap();
    let t = toml.to_str().unwrap();
    for force in [false, true] {
        let mut args = vec!["sweep", t, "--seeds", "2", "--until", "1s"];
        args.extend(["--shard", "0/1", "--out", t]);
        if force {
            args.push("--force");
        }
        let err = refused(&args);
        assert!(err.contains("my.toml") && err.contains("reads"), "{err}");
        let err = refused(["run", t, "--until", "1s", "--trace", t, "--force"]);
        assert!(err.contains("--trace") && err.contains("reads"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&toml).unwrap(), text);
    // An existing file: refused without --force, before anything runs; replaced with it.
    let old = dir.join("old.json");
    for (flag, cmd) in [("--out", &["--shard", "0/1"][..]), ("--trace", &[][..])] {
        std::fs::write(&old, "keep").unwrap();
        let args: Vec<&str> = if flag == "--trace" {
            vec!["run", "pingpong", "--until", "1s"]
        } else {
            SMALL.to_vec()
        };
        let err = refused(args.iter().chain(cmd).chain(&[flag, old.to_str().unwrap()]));
        assert!(err.contains("old.json") && err.contains("--force"), "{err}");
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "keep");
        let a = cs()
            .args(&args)
            .args(cmd)
            .args([flag, old.to_str().unwrap(), "--force"])
            .assert();
        // 0, or 1 where expectations due after 1 s are not reached; not a refusal.
        let code = a.get_output().status.code();
        assert!(matches!(code, Some(0 | 1)), "{flag}: {:?}", a.get_output());
        assert_ne!(std::fs::read_to_string(&old).unwrap(), "keep");
    }
    let svg = dir.join("old.svg");
    std::fs::write(&svg, "keep").unwrap();
    let err = refused(SMALL.iter().chain(&["--plot", svg.to_str().unwrap()]));
    assert!(err.contains("old.svg") && err.contains("--force"), "{err}");
    // merge: its parts are inputs, even named like a plot.
    let part = dir.join("part.svg");
    cs().args(SMALL)
        .args(["--shard", "0/1", "--out"])
        .arg(&part)
        .assert()
        .success();
    let before = std::fs::read(&part).unwrap();
    let a = cs()
        .arg("merge")
        .arg(&part)
        .arg("--plot")
        .arg(&part)
        .arg("--force")
        .assert();
    exits_2_naming(a, &["--plot", "part.svg", "reads"]);
    assert_eq!(std::fs::read(&part).unwrap(), before);
}

/// Every write's error is reported with the file's name and exit 2: a plot, a part or a trace
/// written to a full disk (/dev/full) used to exit 0 without the file (the plot's ENOSPC was
/// swallowed).
#[cfg(target_os = "linux")]
#[test]
fn write_errors_name_the_file_and_exit_2() {
    let dir = tmp_dir("full");
    let link = |name: &str| {
        let p = dir.join(name);
        let _ = std::fs::remove_file(&p);
        std::os::unix::fs::symlink("/dev/full", &p).unwrap();
        p
    };
    for name in ["full.png", "full.svg"] {
        let a = cs().args(SMALL).arg("--plot").arg(link(name)).assert();
        exits_2_naming(a, &["--plot", name, "No space left"]);
    }
    let a = cs()
        .args(SMALL)
        .args(["--shard", "0/1", "--out"])
        .arg(link("full.json"))
        .assert();
    exits_2_naming(a, &["--out", "full.json", "No space left"]);
    let a = cs()
        .args(["run", "pingpong", "--until", "1s", "--trace"])
        .arg(link("full.jsonl"))
        .assert();
    exits_2_naming(a, &["--trace", "full.jsonl", "No space left"]);
}

/// A plot whose last bytes cannot be written is an error naming the file, not exit 0 with a cut
/// picture: the PNG encoder behind plotters' file output wrote its last bytes when dropped and
/// swallowed their error. A file size limit one byte short of the picture plays the full disk.
#[cfg(target_os = "linux")]
#[test]
fn a_plot_cut_short_is_an_error() {
    use std::os::unix::process::CommandExt;
    let dir = tmp_dir("cut");
    let whole = dir.join("whole.png");
    cs().args(SMALL)
        .arg("--plot")
        .arg(&whole)
        .assert()
        .success();
    let size = std::fs::metadata(&whole).unwrap().len();
    let cut = dir.join("cut.png");
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("clusterscope"));
    c.args(SMALL).arg("--plot").arg(&cut);
    // SAFETY: between fork and exec, only async-signal-safe calls (signal, setrlimit).
    unsafe {
        c.pre_exec(move || {
            // Past the limit a write fails with EFBIG instead of the process being killed.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: size - 1,
                rlim_max: size - 1,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--plot") && err.contains("cut.png") && err.contains("File too large"),
        "{err}"
    );
}

/// `diff` checks each side's expectations as `run` does (each at its own time), not on the
/// state left where the search for the first divergence stopped: raft-figure-8's safe variant
/// holds all of its checks in both.
#[test]
fn diff_checks_expectations_as_run_does() {
    let report = |variant: &str| -> serde_json::Value {
        let a = cs()
            .args([
                "run",
                "raft-figure-8",
                "--variant",
                variant,
                "--format",
                "json",
            ])
            .assert();
        serde_json::from_slice::<serde_json::Value>(&a.get_output().stdout).unwrap()["expectations"]
            .clone()
    };
    for variants in ["safe,safe", "unsafe-commit,safe"] {
        let a = cs()
            .args([
                "diff",
                "raft-figure-8",
                "--variants",
                variants,
                "--format",
                "json",
            ])
            .assert();
        let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
        for (i, variant) in variants.split(',').enumerate() {
            assert_eq!(
                v["expectations"][i],
                report(variant),
                "{variants}: {variant}"
            );
        }
    }
    let a = cs()
        .args(["diff", "raft-figure-8", "--variants", "safe,safe"])
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    // Every expectation and caption check of the variant, as `run` counts them (more than the
    // 8 named expectations: the captions' checks too).
    let n = report("safe").as_array().unwrap().len();
    assert!(n > 8, "{n}");
    assert!(
        text.contains(&format!(
            "safe: {n}/{n} expectations hold; safe: {n}/{n} expectations hold"
        )),
        "{text}"
    );
}

/// An errored seed is listed with the link (or command) that replays it, as a failing one is.
#[test]
fn errored_seeds_come_with_a_link() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenarios/pingpong.toml"
    ))
    .unwrap();
    let text = format!(
        "{text}\n[[recorded]]\nstep = 900000000\nat = \"19s\"\naction = \"kill\"\nnode = \"n1\"\n"
    );
    let p = write_tmp("never-pingpong.toml", text.as_bytes());
    let a = cs()
        .arg("sweep")
        .arg(&p)
        .args([
            "--seeds",
            "2",
            "--jobs",
            "1",
            "--base-url",
            "https://example.org/cs/",
        ])
        .assert()
        .code(2);
    let out = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(out.contains("error: seed 2: "), "{out}");
    assert!(
        out.contains("    seed 2: https://example.org/cs/#s="),
        "{out}"
    );
}
