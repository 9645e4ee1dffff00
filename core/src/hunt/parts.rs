//! A hunt in shards: one shard's result ([`Part`]) and merging the parts of one plan.

use super::*;

/// One shard's result (`hunt --shard I/N --out part.json`): the candidates `i, i+n, ...` below
/// `plan.runs` up to its first failing one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// A marker, so that a wrong file is named as such.
    pub clusterscope_hunt_part: u32,
    pub plan: Plan,
    pub shard: (u64, u64),
    /// Candidates this shard ran.
    pub runs_done: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<Found>,
}

pub const PART_VERSION: u32 = 1;

/// Merge the parts of one hunt: every shard `0..n` once, one plan. The result is the found
/// counterexample of the lowest candidate index (each shard ran its candidates in order up to
/// its first failing one, so that is the one an unsharded hunt of the same runs finds), with the
/// runs done in all.
pub fn merge(parts: &[(String, Part)]) -> Result<(Plan, u64, Option<Found>), String> {
    let Some((first_file, first)) = parts.first() else {
        return Err("merge: no part files given".into());
    };
    let n = first.shard.1;
    let mut seen = vec![None::<&str>; n as usize];
    for (file, p) in parts {
        if p.clusterscope_hunt_part != PART_VERSION {
            return Err(format!(
                "{file}: a hunt part of format {}; this clusterscope reads format {PART_VERSION}",
                p.clusterscope_hunt_part
            ));
        }
        if p.plan != first.plan || p.shard.1 != n {
            return Err(format!(
                "{file}: a part of another hunt than {first_file} (plan or shard count differ); \
                 merge the parts of one hunt only"
            ));
        }
        let i = p.shard.0;
        if i >= n {
            return Err(format!("{file}: shard {i}/{n} is out of range"));
        }
        if let Some(other) = seen[i as usize] {
            return Err(format!(
                "{file}: shard {i}/{n} is also {other}: is one given twice?"
            ));
        }
        seen[i as usize] = Some(file);
        if let Some(f) = &p.found {
            if f.index % n != i || f.index >= p.plan.runs {
                return Err(format!(
                    "{file}: found.index {} is not a candidate of shard {i}/{n}",
                    f.index
                ));
            }
        }
    }
    if let Some(missing) = seen.iter().position(Option::is_none) {
        return Err(format!(
            "merge: shard {missing}/{n} is missing; a hunt's result needs every shard's part"
        ));
    }
    let found = parts
        .iter()
        .filter_map(|(_, p)| p.found.as_ref())
        .min_by_key(|f| f.index)
        .cloned();
    let runs = parts.iter().map(|(_, p)| p.runs_done).sum();
    Ok((first.plan.clone(), runs, found))
}
