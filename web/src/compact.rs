//! The default scenario read ahead of time (issue 44): its file as TOML's value tree, the model's
//! section apart (`Scenario::read_tables`), in a small binary form (`default-scenario.bin`, made
//! natively by this module's test) that [`scenario`] turns back into the same tables and types
//! and validates as the reader does (`Scenario::from_tables`). So the app's first frame needs no
//! TOML text parser: the scenario reader (toml's parser, toml_parser, the typed reading of a
//! file) is a part of the split build fetched when a text is first read (`crate::reader`).
//!
//! The form: a value is a tag byte, then `s` a string (u32 length, UTF-8), `i` an i64, `f` an
//! f64's bits, `b` a byte 0/1, `a` an array (u32 count, values), `t` a table (u32 count, then
//! key string and value each); integers little-endian. The file: the rest's table, then the
//! section's table or `n`. The tables are typed by hand (`crate::compact_typed`: serde's
//! deserializers of the file's types over toml's `Value` were ~37 KB of the gzipped main module)
//! and validated by the reader's own `Scenario::from_raw`. The test fails when the file and the
//! form disagree (bless with `CLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-web compact`), when
//! the scenario built from the form differs from the one read from the text, or when the typing
//! by hand differs from serde's on any scenario file of the repository.

use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::{Scenario, ScenarioError};

/// The default scenario's file as [`scenario`] reads it.
const FORM: &[u8] = include_bytes!("default-scenario.bin");

/// The default scenario, typed and validated against `limits` from the form read ahead of time.
pub fn scenario(file: &str, limits: &Limits) -> Result<Scenario, ScenarioError> {
    let mut b = FORM;
    let rest = table(&mut b);
    let section = match b.first() {
        Some(b't') => Some(table(&mut b)),
        _ => None,
    };
    let raw = crate::compact_typed::scenario_file(rest).map_err(|msg| ScenarioError {
        file: file.to_string(),
        msg: format!("the default scenario's form: {msg}"),
    })?;
    let mut sc = Scenario::from_raw(file, raw, limits)?;
    sc.section = section;
    Ok(sc)
}

fn take<'a>(b: &mut &'a [u8], n: usize) -> &'a [u8] {
    let (h, t) = b.split_at(n);
    *b = t;
    h
}

fn u32_of(b: &mut &[u8]) -> usize {
    u32::from_le_bytes(take(b, 4).try_into().expect("4 bytes")) as usize
}

fn u64_of(b: &mut &[u8]) -> u64 {
    u64::from_le_bytes(take(b, 8).try_into().expect("8 bytes"))
}

fn string(b: &mut &[u8]) -> String {
    let n = u32_of(b);
    String::from_utf8(take(b, n).to_vec()).expect("the form's strings are UTF-8")
}

fn table(b: &mut &[u8]) -> toml::Table {
    match value(b) {
        toml::Value::Table(t) => t,
        _ => panic!("the default scenario's form: a table expected"),
    }
}

fn value(b: &mut &[u8]) -> toml::Value {
    use toml::Value as V;
    match take(b, 1)[0] {
        b's' => V::String(string(b)),
        b'i' => V::Integer(u64_of(b) as i64),
        b'f' => V::Float(f64::from_bits(u64_of(b))),
        b'b' => V::Boolean(take(b, 1)[0] != 0),
        b'a' => {
            let n = u32_of(b);
            V::Array((0..n).map(|_| value(b)).collect())
        }
        b't' => {
            let n = u32_of(b);
            V::Table((0..n).map(|_| (string(b), value(b))).collect())
        }
        t => panic!("the default scenario's form: unknown tag {t}"),
    }
}

/// The form of a file's tables (the test's, to make and check `default-scenario.bin`).
#[cfg(test)]
pub fn encode(rest: &toml::Table, section: Option<&toml::Table>) -> Vec<u8> {
    fn str_to(out: &mut Vec<u8>, s: &str) {
        out.extend((s.len() as u32).to_le_bytes());
        out.extend(s.as_bytes());
    }
    fn put(out: &mut Vec<u8>, v: &toml::Value) {
        use toml::Value as V;
        match v {
            V::String(s) => {
                out.push(b's');
                str_to(out, s);
            }
            V::Integer(i) => {
                out.push(b'i');
                out.extend(i.to_le_bytes());
            }
            V::Float(f) => {
                out.push(b'f');
                out.extend(f.to_bits().to_le_bytes());
            }
            V::Boolean(x) => out.extend([b'b', u8::from(*x)]),
            V::Array(a) => {
                out.push(b'a');
                out.extend((a.len() as u32).to_le_bytes());
                a.iter().for_each(|v| put(out, v));
            }
            V::Table(t) => {
                out.push(b't');
                out.extend((t.len() as u32).to_le_bytes());
                for (k, v) in t {
                    str_to(out, k);
                    put(out, v);
                }
            }
            V::Datetime(_) => panic!("the default scenario's form has no dates"),
        }
    }
    let mut out = Vec::new();
    put(&mut out, &toml::Value::Table(rest.clone()));
    match section {
        Some(s) => put(&mut out, &toml::Value::Table(s.clone())),
        None => out.push(b'n'),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::DEFAULT;
    use clusterscope_core::runner::{Run, RunOptions};
    use clusterscope_core::scenario::builtin;

    const TEXT: &str = include_str!("../../scenarios/cassandra-21636-packet-loss.toml");

    /// `default-scenario.bin` is the default scenario's file read natively, and the scenario
    /// built from it is the one the reader makes of the text: every field, and every variant's
    /// run (its trace hash and expectations).
    #[test]
    fn the_default_scenarios_form_is_its_file() {
        let file = builtin::entry(DEFAULT)
            .expect("the default is a built-in")
            .file();
        assert_eq!(builtin::text(DEFAULT), Some(TEXT));
        let (rest, section) = Scenario::read_tables(TEXT).unwrap();
        let form = encode(&rest, section.as_ref());
        if std::env::var("CLUSTERSCOPE_BLESS").is_ok_and(|v| v == "1") {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/default-scenario.bin");
            std::fs::write(path, &form).unwrap();
        } else {
            assert!(
                form == FORM,
                "web/src/default-scenario.bin is not the default scenario's file: run \
                 CLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-web compact"
            );
        }
        for limits in [Limits::default(), Limits::browser()] {
            let read = Scenario::parse(&file, TEXT, &limits).unwrap();
            let built = scenario(&file, &limits).unwrap();
            assert_eq!(built, read);
        }
        let read = Scenario::parse(&file, TEXT, &Limits::default()).unwrap();
        let built = scenario(&file, &Limits::default()).unwrap();
        let opts = RunOptions::default();
        for v in read.variant_names() {
            let no = toml::Table::new();
            let a = Run::new(read.clone(), v, Some(3), &no, &opts)
                .unwrap()
                .run(None);
            let b = Run::new(built.clone(), v, Some(3), &no, &opts)
                .unwrap()
                .run(None);
            let (a, b) = (a.unwrap(), b.unwrap());
            assert_eq!(a.trace_hash, b.trace_hash, "variant {v}");
            assert_eq!(a.events, b.events, "variant {v}");
            assert_eq!(
                format!("{:?}", a.expectations),
                format!("{:?}", b.expectations),
                "variant {v}"
            );
        }
    }

    /// Every scenario file of the repository (the built-ins, the examples, the tests' files) its
    /// tables typed by hand as serde types them: the same `ScenarioFile`, or both refuse it.
    #[test]
    fn typed_like_serde() {
        use clusterscope_core::scenario::ScenarioFile;
        use serde::Deserialize;
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
        let mut dirs: Vec<_> = ["scenarios", "static/examples", "tests/scenarios"]
            .iter()
            .map(|d| root.join(d))
            .filter(|d| d.is_dir())
            .collect();
        let mut files = Vec::new();
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "toml") {
                    files.push(p);
                }
            }
        }
        let (mut same, mut refused) = (0, 0);
        for p in &files {
            let text = std::fs::read_to_string(p).unwrap();
            let Ok((rest, _)) = Scenario::read_tables(&text) else {
                continue;
            };
            let by_serde = ScenarioFile::deserialize(toml::Value::Table(rest.clone()));
            let by_hand = crate::compact_typed::scenario_file(rest);
            match (by_serde, by_hand) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{}", p.display());
                    same += 1;
                }
                (Err(_), Err(_)) => refused += 1,
                (Ok(a), Err(e)) if !a.recorded.is_empty() => {
                    assert!(e.contains("recorded"), "{}: {e}", p.display())
                }
                (a, b) => panic!(
                    "{}: serde {:?}, by hand {:?}",
                    p.display(),
                    a.map(|_| ()),
                    b.map(|_| ())
                ),
            }
        }
        assert!(
            same >= 30,
            "{same} files typed alike ({refused} refused by both)"
        );
    }

    /// The typing by hand refuses what serde refuses: an unknown field, a missing one, a wrong
    /// type, an alias given twice, an empty list of nodes.
    #[test]
    fn typed_refuses_as_serde() {
        use clusterscope_core::scenario::ScenarioFile;
        use serde::Deserialize;
        let cases = [
            ("seeds = [\"C\"]", "seeds = [\"C\"]\nbogus = 1"),
            ("duration = \"12m\"", "duration = 12"),
            ("seed = 1", "seed = -1"),
            (
                "observer = \"A\"\npeer = \"B\"\nat = \"58s\"",
                "observer = \"A\"\nnode = \"A\"\npeer = \"B\"\nat = \"58s\"",
            ),
            (
                "observer = \"A\"\npeer = \"B\"\nat = \"58s\"",
                "observer = []\npeer = \"B\"\nat = \"58s\"",
            ),
            ("during = [\"105s\", \"end\"]", "during = [\"105s\"]"),
            ("chance = \"90%..100%\"", "chance = \"100%..90%\""),
            ("name = \"cassandra-21636-packet-loss\"\n", ""),
        ];
        for (from, to) in cases {
            assert!(TEXT.contains(from), "{from}");
            let text = TEXT.replacen(from, to, 1);
            let (rest, _) = Scenario::read_tables(&text).unwrap();
            assert!(
                ScenarioFile::deserialize(toml::Value::Table(rest.clone())).is_err(),
                "serde takes {to:?}"
            );
            assert!(
                crate::compact_typed::scenario_file(rest).is_err(),
                "the typing by hand takes {to:?}"
            );
        }
    }

    /// The test above can fail: a form of another file makes another scenario.
    #[test]
    fn another_form_is_another_scenario() {
        let file = builtin::entry(DEFAULT).unwrap().file();
        let changed = TEXT.replace("seeds = [\"C\"]", "seeds = [\"A\"]");
        let (rest, section) = Scenario::read_tables(&changed).unwrap();
        assert_ne!(encode(&rest, section.as_ref()), FORM);
        let other = Scenario::parse(&file, &changed, &Limits::default()).unwrap();
        assert_ne!(scenario(&file, &Limits::default()).unwrap(), other);
    }
}
