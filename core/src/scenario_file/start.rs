//! What the models' start states share (`[[<section>.start]]`, issue 42): an array of tables,
//! each naming its node once, with only the keys the model knows; the values' readers. Each
//! model checks and loads the rest (`raft/start.rs`, `ozone/start.rs`, `mutation/start.rs`).

use crate::engine::{NodeId, Topology};

/// One `[[<section>.start]]` table: its node, and `here` ("[[raft.start]] of n2") for errors.
pub struct StartTable<'a> {
    pub id: NodeId,
    pub name: &'a str,
    pub table: &'a toml::Table,
    pub here: String,
}

/// The tables of `[[<section>.start]]`, each a table of `keys` naming a node of `topo` (a
/// `what`: "server", "datanode", "replica") that no other table names; `fields` lists the keys
/// in the error for a value that is not a table.
pub fn tables<'a>(
    value: &'a toml::Value,
    section: &str,
    what: &str,
    fields: &str,
    keys: &[&str],
    topo: &Topology,
) -> Result<Vec<StartTable<'a>>, String> {
    let toml::Value::Array(items) = value else {
        return Err(format!(
            "{section}.start must be an array of tables: write each {what}'s start state as \
             [[{section}.start]]"
        ));
    };
    let mut out: Vec<StartTable<'a>> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let here = format!("[[{section}.start]] #{}", i + 1);
        let t = table(item, &here, &format!("({fields})"), "a start state", keys)?;
        let Some(name) = t.get("node") else {
            return Err(format!(
                "{here}: `node` is missing: name the {what} this state is of"
            ));
        };
        let name = text(name, &format!("{here}.node"))?;
        let id = topo
            .resolve(name)
            .map_err(|e| format!("{here}.node: {e}"))?;
        let here = format!("[[{section}.start]] of {name}");
        if out.iter().any(|s| s.id == id) {
            return Err(format!(
                "{here}: {name} has two start states; merge them into one [[{section}.start]]"
            ));
        }
        out.push(StartTable {
            id,
            name,
            table: t,
            here,
        });
    }
    Ok(out)
}

/// `item` as a table of `keys` only; else an error at `here`: it must be a table `shape`
/// ("(node, logs)", "{ id, state, bcsid }"), or the unknown key and what `owner` ("a log") has.
pub fn table<'a>(
    item: &'a toml::Value,
    here: &str,
    shape: &str,
    owner: &str,
    keys: &[&str],
) -> Result<&'a toml::Table, String> {
    let toml::Value::Table(t) = item else {
        return Err(format!("{here}: must be a table {shape}"));
    };
    known_keys(t, here, owner, keys)?;
    Ok(t)
}

/// An error at `here` for the first key of `t` not in `keys`, saying what `owner` has.
pub fn known_keys(t: &toml::Table, here: &str, owner: &str, keys: &[&str]) -> Result<(), String> {
    match t.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(format!(
            "{here}: unknown key `{k}`; {owner} has {}",
            keys.join(", ")
        )),
        None => Ok(()),
    }
}

/// A string value, or an error naming `what`.
pub fn text<'a>(v: &'a toml::Value, what: &str) -> Result<&'a str, String> {
    v.as_str()
        .ok_or_else(|| format!("{what} must be a string, not {}", v.type_str()))
}

/// A whole number >= 0, or an error naming `what`.
pub fn uint(v: &toml::Value, what: &str) -> Result<u64, String> {
    match v {
        toml::Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        toml::Value::Integer(i) => Err(format!("{what} is {i}; use a whole number >= 0")),
        other => Err(format!(
            "{what} must be a whole number, not {}",
            other.type_str()
        )),
    }
}
