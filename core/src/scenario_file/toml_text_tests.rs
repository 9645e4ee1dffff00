//! `toml_text` writes what toml's `Display` of a value writes.

use super::toml_text;

fn same(v: &toml::Value) {
    assert_eq!(toml_text(v), v.to_string(), "{v:?}");
}

/// Every value under `v`, `v` included.
fn each(v: &toml::Value, f: &mut dyn FnMut(&toml::Value)) {
    f(v);
    match v {
        toml::Value::Array(a) => a.iter().for_each(|x| each(x, f)),
        toml::Value::Table(t) => t.values().for_each(|x| each(x, f)),
        _ => {}
    }
}

#[test]
fn toml_text_is_display() {
    let texts = [
        "0",
        "-7",
        "9223372036854775807",
        "-9223372036854775808",
        "1.0",
        "-0.0",
        "0.0",
        "1.5",
        "1e300",
        "-1e-300",
        "6.02e23",
        "0.1",
        "nan",
        "-nan",
        "inf",
        "-inf",
        "true",
        "false",
        "\"\"",
        "\"a\"",
        "\"it's\"",
        "\"a\\\"b\"",
        "'c:\\\\dir'",
        "\"tab\\there\"",
        "\"line\\nbreak\"",
        "\"\\u0001\"",
        "\"é ü\"",
        "\"'\\\"\"",
        "\"'''\"",
        "\"x\\\\y\"",
        "1979-05-27T07:32:00Z",
        "1979-05-27T00:32:00.999999-07:00",
        "1979-05-27",
        "07:32:00",
        "1979-05-27T07:32:00",
        "[]",
        "[1, 2]",
        "[\"a\", 'b', [1.5, {}]]",
        "{}",
        "{ a = 1 }",
        "{ b = 'x', a = [1], \"k y\" = 2 }",
        "{ \"é\" = { \"\" = true, 'a\"b' = 1 } }",
        "[{ x = 1 }, { y = [] }]",
    ];
    for t in texts {
        let v: toml::Value = toml::from_str::<toml::Table>(&format!("v = {t}"))
            .unwrap_or_else(|e| panic!("{t}: {e}"))
            .remove("v")
            .unwrap();
        same(&v);
    }
    for f in [
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::EPSILON,
        -f64::NAN,
        1.0 / 3.0,
        123456789.0,
    ] {
        same(&toml::Value::Float(f));
    }
    let mut n = 0;
    for dir in ["../scenarios", "../scenarios/lecture", "../tests/scenarios"] {
        let Ok(read) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in read.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "toml") {
                let text = std::fs::read_to_string(&p).unwrap();
                if let Ok(t) = toml::from_str::<toml::Table>(&text) {
                    each(&toml::Value::Table(t), &mut |v| {
                        same(v);
                        n += 1;
                    });
                }
            }
        }
    }
    assert!(n > 1000, "only {n} values read from the scenario files");
}
