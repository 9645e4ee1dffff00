//! `clusterscope hunt`: exit 1 with a counterexample written as a scenario, identical for any
//! `--jobs`; exit 0 when the budget runs out; `--out` is never overwritten without `--force`.

use assert_cmd::Command;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs/hunting/gossip-21636.toml"
);
const SYMPTOM: &str = "every node sees every other UP at the end";

fn hunt(variant: &str, jobs: &str, out: &std::path::Path) -> assert_cmd::assert::Assert {
    Command::cargo_bin("clusterscope")
        .unwrap()
        .args(["hunt", FILE, "--variant", variant, "--break", SYMPTOM])
        .args(["--faults", "drop,loss,partition,delay,restart,kill,stall"])
        .args([
            "--budget",
            "400runs",
            "--hunt-seed",
            "2",
            "--jobs",
            jobs,
            "--out",
        ])
        .arg(out)
        .assert()
}

#[test]
fn jobs_1_and_2_find_the_same_counterexample() {
    let dir = std::env::temp_dir().join(format!("cs-hunt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.toml"), dir.join("b.toml"));
    let out = hunt("buggy", "1", &a).code(1).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("FOUND at run"), "{text}");
    assert!(text.contains("#s="), "no permalink: {text}");
    hunt("buggy", "2", &b).code(1);
    let (fa, fb) = (
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
    );
    assert_eq!(fa, fb);
    // The file replays the failure in `clusterscope run`.
    Command::cargo_bin("clusterscope")
        .unwrap()
        .args(["run"])
        .arg(&a)
        .args(["--variant", "buggy"])
        .assert()
        .code(1);
    // An existing --out is refused without --force, and the input never replaced.
    let err = hunt("buggy", "2", &a).code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&err).contains("add --force"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_fixed_variant_survives_and_exits_0() {
    let dir = std::env::temp_dir().join(format!("cs-hunt-fixed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = hunt("fixed", "2", &dir.join("f.toml"))
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("not found in 400 runs"));
    assert!(!dir.join("f.toml").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_hunt_without_a_target_or_with_an_unknown_one_is_refused() {
    let err = Command::cargo_bin("clusterscope")
        .unwrap()
        .args(["hunt", FILE, "--variant", "buggy"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains(SYMPTOM));
    let err = Command::cargo_bin("clusterscope")
        .unwrap()
        .args(["hunt", FILE, "--break", "nope"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains("no expectation of that name"));
    let err = Command::cargo_bin("clusterscope")
        .unwrap()
        .args(["hunt", FILE, "--invariants"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains("checks no safety invariants"));
}

#[test]
fn bad_faults_budget_and_max_faults_are_refused_with_exit_2() {
    let refused = |args: &[&str], want: &str| {
        let err = Command::cargo_bin("clusterscope")
            .unwrap()
            .args(["hunt", FILE, "--variant", "buggy", "--break", SYMPTOM])
            .args(args)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8_lossy(&err);
        assert!(err.contains(want), "{args:?}: {err}");
    };
    refused(
        &["--faults", "drop,crashes"],
        "\"crashes\" is not a fault kind",
    );
    refused(&["--faults", "network,drop"], "\"drop\" is given twice");
    refused(&["--budget", "0runs"], "use 1 to 100000000 runs");
    refused(&["--budget", "10k"], "expected a number of runs");
    refused(&["--max-faults", "0"], "use 1 to 64 faults a run");
    refused(&["--max-faults", "65"], "use 1 to 64 faults a run");
}

/// What scripts/slurm-local checks on a real Slurm, through the binary: four shards of a hunt on
/// a built-in scenario, given to `merge` out of order, print what one unsharded hunt prints but
/// for its work and time ("after N runs, T s": shards stop at their own first counterexample);
/// the counterexample is not in shard 0 and other shards found later ones, so the merge chose.
/// A merge that found nothing claims no count of schedules that could not apply (a part
/// records none).
#[test]
fn four_hunt_shards_merged_print_one_hunts_result() {
    let dir = std::env::temp_dir().join(format!("cs-hunt-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = |budget: &str| -> Vec<String> {
        [
            "hunt",
            "sandbox-raft",
            "--variant",
            "sandbox",
            "--break",
            "one leader once the election settles",
            "--budget",
            budget,
            "--hunt-seed",
            "9",
        ]
        .map(String::from)
        .to_vec()
    };
    let cs = || Command::cargo_bin("clusterscope").unwrap();
    let stdout =
        |a: assert_cmd::assert::Assert| String::from_utf8(a.get_output().stdout.clone()).unwrap();
    // Everything but the work and the seconds of the FOUND line.
    let norm = |s: &str| {
        s.lines()
            .map(|l| match l.find(", after ") {
                Some(i) if l.starts_with("  FOUND at run ") => &l[..i],
                _ => l,
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let whole = stdout(cs().args(args("2000runs")).assert().code(1));
    assert!(whole.contains("FOUND at run 44 "), "{whole}");
    let mut parts = Vec::new();
    for i in 0..4 {
        let p = dir.join(format!("hunt-{i}.json"));
        cs().args(args("2000runs"))
            .args(["--shard", &format!("{i}/4"), "--out"])
            .arg(&p)
            .assert()
            .success();
        parts.push(p);
    }
    let texts: Vec<String> = parts
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(!texts[0].contains("\"index\":43,"), "{}", texts[0]);
    assert!(texts[3].contains("\"index\":43,"), "{}", texts[3]);
    assert!(texts[1].contains("\"found\"") && texts[2].contains("\"found\""));
    parts.reverse();
    let merged = stdout(cs().arg("merge").args(&parts).assert().code(1));
    assert!(merged.contains("runs in all shards\n"), "{merged}");
    assert_eq!(norm(&merged), norm(&whole));
    // Not found: 20 runs, none fails.
    for (i, p) in parts.iter().enumerate() {
        cs().args(args("20runs"))
            .args(["--shard", &format!("{}/4", 3 - i), "--out"])
            .arg(p)
            .arg("--force")
            .assert()
            .success();
    }
    let merged = stdout(cs().arg("merge").args(&parts).assert().code(0));
    assert!(merged.ends_with("\n  not found in 20 runs\n"), "{merged}");
    std::fs::remove_dir_all(&dir).unwrap();
}
