//! The default scenario's form typed by hand (issue 44): its tables (`crate::compact`) into a
//! [`ScenarioFile`] field by field, as serde's derived reading of the file does, without serde's
//! deserializers. Those, instantiated for every type of the file over toml's `Value`, were
//! ~107 KB of code (~37 KB gzipped, docs/PERFORMANCE.md) in the main module for the default
//! scenario alone; this reader is a few KB.
//!
//! It reads what the derived `Deserialize` reads (every field, its default, the `node` alias,
//! unknown fields refused) but for `recorded` (a session's recorded actions, never in a built-in
//! file). Its errors are short: the form is made from the default scenario's file natively and
//! checked by `crate::compact`'s tests, which also check this reader against serde's on every
//! scenario file of the repository (`typed_like_serde`).

use clusterscope_core::engine::action::Dur;
use clusterscope_core::scenario::{
    Caption, Chance, ClusterSpec, ExpectSpec, Generate, HoldSpec, NetworkSpec, NodeSpec,
    ScenarioFile, TimeRef, VariantSpec,
};
use clusterscope_core::time::parse_duration;
use toml::{Table, Value};

type R<T> = Result<T, String>;

/// A table's fields, taken one by one; what is left at the end is an unknown field.
struct Fields(Table);

impl Fields {
    fn of(v: Value, what: &str) -> R<Fields> {
        match v {
            Value::Table(t) => Ok(Fields(t)),
            _ => Err(format!("{what}: a table expected")),
        }
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        self.0.remove(key)
    }

    /// A field with an alias (`observer` or `node`): both is an error, as serde's.
    fn take_aliased(&mut self, key: &str, alias: &str) -> R<Option<Value>> {
        match (self.0.remove(key), self.0.remove(alias)) {
            (Some(_), Some(_)) => Err(format!("duplicate field `{key}`")),
            (a, b) => Ok(a.or(b)),
        }
    }

    fn need(&mut self, key: &str) -> R<Value> {
        self.take(key)
            .ok_or_else(|| format!("missing field `{key}`"))
    }

    fn done<T>(self, out: T) -> R<T> {
        match self.0.keys().next() {
            Some(k) => Err(format!("unknown field `{k}`")),
            None => Ok(out),
        }
    }
}

fn string(v: Value) -> R<String> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err("a string expected".into()),
    }
}

fn table(v: Value) -> R<Table> {
    match v {
        Value::Table(t) => Ok(t),
        _ => Err("a table expected".into()),
    }
}

fn array(v: Value) -> R<Vec<Value>> {
    match v {
        Value::Array(a) => Ok(a),
        _ => Err("an array expected".into()),
    }
}

fn list<T>(v: Value, each: impl Fn(Value) -> R<T>) -> R<Vec<T>> {
    array(v)?.into_iter().map(each).collect()
}

fn opt<T>(v: Option<Value>, f: impl Fn(Value) -> R<T>) -> R<Option<T>> {
    v.map(f).transpose()
}

fn or_default<T: Default>(v: Option<Value>, f: impl Fn(Value) -> R<T>) -> R<T> {
    Ok(opt(v, f)?.unwrap_or_default())
}

fn uint(v: Value, max: u64) -> R<u64> {
    match v {
        Value::Integer(i) if i >= 0 && i as u64 <= max => Ok(i as u64),
        _ => Err("an unsigned integer in range expected".into()),
    }
}

fn u32_of(v: Value) -> R<u32> {
    uint(v, u32::MAX as u64).map(|x| x as u32)
}

/// serde's `f64` takes integers too.
fn float(v: Value) -> R<f64> {
    match v {
        Value::Float(f) => Ok(f),
        Value::Integer(i) => Ok(i as f64),
        _ => Err("a number expected".into()),
    }
}

fn boolean(v: Value) -> R<bool> {
    match v {
        Value::Boolean(b) => Ok(b),
        _ => Err("a boolean expected".into()),
    }
}

/// `Dur`'s `Deserialize`: a duration string.
fn dur(v: Value) -> R<Dur> {
    parse_duration(&string(v)?).map(Dur)
}

/// `TimeRef`'s `Deserialize`: `end` or a duration.
fn time_ref(v: Value) -> R<TimeRef> {
    let s = string(v)?;
    if s == "end" {
        Ok(TimeRef::End)
    } else {
        parse_duration(&s).map(TimeRef::At)
    }
}

fn window(v: Value) -> R<[TimeRef; 2]> {
    let a = array(v)?;
    if a.len() != 2 {
        return Err("a window of two times expected".into());
    }
    let mut it = a.into_iter();
    let (x, y) = (it.next().expect("two"), it.next().expect("two"));
    Ok([time_ref(x)?, time_ref(y)?])
}

fn chance(v: Value) -> R<Chance> {
    Chance::parse(&string(v)?)
}

/// `noderef::de_names`: a name, a set's text, or a non-empty list of names joined by ", ".
fn names(v: Value) -> R<Option<String>> {
    match v {
        Value::String(s) => Ok(Some(s)),
        Value::Array(a) if a.is_empty() => Err("an empty list of nodes; name at least one".into()),
        Value::Array(a) => Ok(Some(
            a.into_iter().map(string).collect::<R<Vec<_>>>()?.join(", "),
        )),
        _ => Err("a node name or a list of names expected".into()),
    }
}

fn node_spec(v: Value) -> R<NodeSpec> {
    let mut f = Fields::of(v, "a node")?;
    let n = NodeSpec {
        name: string(f.need("name")?)?,
        dc: opt(f.take("dc"), string)?,
        rack: opt(f.take("rack"), string)?,
    };
    f.done(n)
}

fn generate(v: Value) -> R<Generate> {
    let mut f = Fields::of(v, "generate")?;
    let g = Generate {
        count: u32_of(f.need("count")?)?,
        dcs: opt(f.take("dcs"), u32_of)?.unwrap_or(1),
        racks: opt(f.take("racks"), u32_of)?.unwrap_or(1),
        prefix: opt(f.take("prefix"), string)?.unwrap_or_else(|| "n".into()),
    };
    f.done(g)
}

fn cluster(v: Value) -> R<ClusterSpec> {
    let mut f = Fields::of(v, "cluster")?;
    let c = ClusterSpec {
        nodes: or_default(f.take("nodes"), |v| list(v, node_spec))?,
        generate: opt(f.take("generate"), generate)?,
        seeds: or_default(f.take("seeds"), |v| list(v, string))?,
    };
    f.done(c)
}

fn network(v: Value) -> R<NetworkSpec> {
    let mut f = Fields::of(v, "network")?;
    let d = NetworkSpec::default();
    let n = NetworkSpec {
        latency_min: opt(f.take("latency_min"), dur)?.unwrap_or(d.latency_min),
        latency_max: opt(f.take("latency_max"), dur)?.unwrap_or(d.latency_max),
        loss: opt(f.take("loss"), float)?.unwrap_or(0.0),
    };
    f.done(n)
}

fn expect(v: Value) -> R<ExpectSpec> {
    let mut f = Fields::of(v, "an expectation")?;
    let e = ExpectSpec {
        name: string(f.need("name")?)?,
        view: string(f.need("view")?)?,
        observer: opt(f.take_aliased("observer", "node")?, names)?.flatten(),
        peer: opt(f.take("peer"), names)?.flatten(),
        nodes: opt(f.take("nodes"), string)?,
        contains: opt(f.take("contains"), string)?,
        key: opt(f.take("key"), string)?,
        at: opt(f.take("at"), time_ref)?,
        during: opt(f.take("during"), window)?,
        within: opt(f.take("within"), dur)?,
        equals: f.take("equals"),
        one_of: opt(f.take("one_of"), array)?,
        not_equals: f.take("not_equals"),
        at_least: opt(f.take("at_least"), float)?,
        at_most: opt(f.take("at_most"), float)?,
        increases: opt(f.take("increases"), boolean)?,
        chance: opt(f.take("chance"), chance)?,
        source: opt(f.take("source"), string)?,
        caption: None,
    };
    f.done(e)
}

fn hold(v: Value) -> R<HoldSpec> {
    let mut f = Fields::of(v, "a caption's check")?;
    let h = HoldSpec {
        view: string(f.need("view")?)?,
        observer: opt(f.take_aliased("observer", "node")?, names)?.flatten(),
        peer: opt(f.take("peer"), names)?.flatten(),
        nodes: opt(f.take("nodes"), string)?,
        contains: opt(f.take("contains"), string)?,
        key: opt(f.take("key"), string)?,
        since: opt(f.take("since"), dur)?,
        equals: f.take("equals"),
        one_of: opt(f.take("one_of"), array)?,
        not_equals: f.take("not_equals"),
        at_least: opt(f.take("at_least"), float)?,
        at_most: opt(f.take("at_most"), float)?,
        increases: opt(f.take("increases"), boolean)?,
    };
    f.done(h)
}

fn caption(v: Value) -> R<Caption> {
    let mut f = Fields::of(v, "a caption")?;
    let c = Caption {
        at: dur(f.need("at")?)?,
        text: string(f.need("text")?)?,
        variants: or_default(f.take("variants"), |v| list(v, string))?,
        holds: or_default(f.take("holds"), |v| list(v, hold))?,
    };
    f.done(c)
}

fn variant(v: Value) -> R<VariantSpec> {
    let mut f = Fields::of(v, "a variant")?;
    let s = VariantSpec {
        name: string(f.need("name")?)?,
        description: or_default(f.take("description"), string)?,
        params: or_default(f.take("params"), table)?,
        faults: or_default(f.take("faults"), |v| list(v, table))?,
        expect: or_default(f.take("expect"), |v| list(v, expect))?,
    };
    f.done(s)
}

/// The file's tables but its model's section, typed.
pub fn scenario_file(rest: Table) -> R<ScenarioFile> {
    let mut f = Fields(rest);
    if f.0.contains_key("recorded") {
        return Err("recorded actions are not read from the form".into());
    }
    let s = ScenarioFile {
        name: string(f.need("name")?)?,
        title: string(f.need("title")?)?,
        description: or_default(f.take("description"), string)?,
        ticket: opt(f.take("ticket"), string)?,
        protocol: string(f.need("protocol")?)?,
        duration: dur(f.need("duration")?)?,
        seed: opt(f.take("seed"), |v| uint(v, u64::MAX))?.unwrap_or(1),
        cluster: cluster(f.need("cluster")?)?,
        network: opt(f.take("network"), network)?.unwrap_or_default(),
        params: or_default(f.take("params"), table)?,
        variants: list(f.need("variants")?, variant)?,
        faults: or_default(f.take("faults"), |v| list(v, table))?,
        expect: or_default(f.take("expect"), |v| list(v, expect))?,
        captions: or_default(f.take("captions"), |v| list(v, caption))?,
        recorded: Vec::new(),
    };
    f.done(s)
}
