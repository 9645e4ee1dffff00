//! The datanode and SCM commands and the client requests of `protocol = "ozone"`: parsing,
//! the static checks made when a scenario loads, and running them (the `StateMachine` hooks
//! in `mod.rs` call these).

use super::{Csm, OzCmd, OzNode, Res, MAX_BLOCK_LEN, MAX_CHUNK_LEN};
use crate::engine::trace::LogLevel;
use crate::raft::sm::SmCtx;

/// The request kinds `hold-writes KIND` holds.
fn hold_kinds(w: &str) -> Result<Vec<&'static str>, String> {
    match w {
        "WriteChunk" => Ok(vec!["WriteChunk"]),
        "PutBlock" => Ok(vec!["PutBlock"]),
        "all" => Ok(vec!["WriteChunk", "PutBlock"]),
        _ => Err(format!(
            "KIND \"{}\" is not a request kind the hold point holds; use WriteChunk (the default), PutBlock or all",
            crate::text::clip(w, 30)
        )),
    }
}

/// The results `inject-write-result RESULT` can make a WriteChunk data stage answer.
fn injected(w: &str) -> Result<Res, String> {
    match w {
        "CHUNK_FILE_INCONSISTENCY" => Ok(Res::ChunkFileInconsistency),
        "CONTAINER_INTERNAL_ERROR" => Ok(Res::ContainerInternalError),
        _ => Err(format!(
            "RESULT \"{}\" cannot be injected; use CHUNK_FILE_INCONSISTENCY (tolerated: counted as success, no bytes written) or CONTAINER_INTERNAL_ERROR (a failed write: the state machine turns unhealthy)",
            crate::text::clip(w, 30)
        )),
    }
}

fn parse_num<T: std::str::FromStr>(w: &str, what: &str) -> Result<T, String> {
    w.parse()
        .map_err(|_| format!("{what} \"{w}\" is not a number"))
}

/// A WriteChunk's length and offset: 1 to [`MAX_CHUNK_LEN`] bytes, ending within a block of
/// [`MAX_BLOCK_LEN`] (no u64 wrap-around).
pub fn check_chunk(len: u64, off: u64) -> Result<(), String> {
    if !(1..=MAX_CHUNK_LEN).contains(&len) {
        return Err(format!(
            "client-write-chunk: LEN {len} is out of range: a chunk is 1 to {MAX_CHUNK_LEN} bytes (32 MiB, OZONE_SCM_CHUNK_MAX_SIZE)"
        ));
    }
    match off.checked_add(len) {
        Some(end) if end <= MAX_BLOCK_LEN => Ok(()),
        _ => Err(format!(
            "client-write-chunk: OFFSET {off} is out of range: the chunk must end within its block, so OFFSET is 0 to {} for LEN {len} (OFFSET + LEN at most {MAX_BLOCK_LEN}, 256 MiB, ozone.scm.block.size)",
            MAX_BLOCK_LEN - len
        )),
    }
}

/// `StateMachine::parse_request`: the client requests of a datanode.
pub(super) fn parse_request(w: &[&str]) -> Option<Result<OzCmd, String>> {
    let r = match w {
        ["client-write-chunk", tag, c, b, len, rest @ ..] if rest.len() <= 1 => (|| {
            let cmd = "client-write-chunk";
            let len = parse_num(len, "LEN").map_err(|e| format!("{cmd}: {e}"))?;
            let off = match rest {
                [o] => parse_num(o, "OFFSET").map_err(|e| format!("{cmd}: {e}"))?,
                _ => 0,
            };
            check_chunk(len, off)?;
            Ok(OzCmd::WriteChunk {
                tag: tag.to_string(),
                c: parse_num(c, "CONTAINER").map_err(|e| format!("{cmd}: {e}"))?,
                block: parse_num(b, "BLOCK").map_err(|e| format!("{cmd}: {e}"))?,
                len,
                off,
            })
        })(),
        ["client-write-chunk", ..] => Err(
            "client-write-chunk TAG CONTAINER BLOCK LEN [OFFSET], e.g. \"client-write-chunk W1 1 1 1024\"".into(),
        ),
        ["client-put-block", tag, c, b, len] => (|| {
            let cmd = "client-put-block";
            let len = parse_num(len, "LEN").map_err(|e| format!("{cmd}: {e}"))?;
            if len > MAX_BLOCK_LEN {
                return Err(format!(
                    "{cmd}: LEN {len} is out of range: a block is 0 to {MAX_BLOCK_LEN} bytes (256 MiB, ozone.scm.block.size)"
                ));
            }
            Ok(OzCmd::PutBlock {
                tag: tag.to_string(),
                c: parse_num(c, "CONTAINER").map_err(|e| format!("{cmd}: {e}"))?,
                block: parse_num(b, "BLOCK").map_err(|e| format!("{cmd}: {e}"))?,
                len,
            })
        })(),
        ["client-put-block", ..] => Err(
            "client-put-block TAG CONTAINER BLOCK LEN, e.g. \"client-put-block P1 1 1 1024\"".into(),
        ),
        _ => return None,
    };
    Some(r)
}

/// `StateMachine::command_forms`: SCM's (`scm`) or a datanode's node commands.
pub(super) fn command_forms(scm: bool) -> &'static [&'static str] {
    if scm {
        &["close-container CONTAINER"]
    } else {
        &[
            "hold-writes [KIND]",
            "release-writes",
            "inject-write-result RESULT",
            "mark-unhealthy CONTAINER",
        ]
    }
}

/// `StateMachine::is_command`.
pub(super) fn is_command(w: &[&str]) -> bool {
    matches!(
        w.first(),
        Some(
            &("hold-writes"
                | "release-writes"
                | "close-container"
                | "inject-write-result"
                | "mark-unhealthy")
        )
    )
}

impl Csm {
    /// A container id of the pipeline, 1..=containers.
    fn container_id(&self, w: &str) -> Result<u32, String> {
        let cid: u32 = parse_num(w, "CONTAINER")?;
        if !(1..=self.p.containers).contains(&cid) {
            return Err(format!(
                "CONTAINER {cid} is not a container of the pipeline; params.containers = {} makes containers 1 to {}",
                self.p.containers, self.p.containers
            ));
        }
        Ok(cid)
    }

    /// `StateMachine::check_command`: what is wrong with a node command whatever the state.
    pub(super) fn check_node_command(&self, w: &[&str]) -> Result<(), String> {
        match w {
            ["close-container", k] => parse_num::<u32>(k, "container").map(|_| ()),
            ["hold-writes", k] => hold_kinds(k).map(|_| ()),
            ["inject-write-result", r] => injected(r).map(|_| ()),
            ["mark-unhealthy", k] => self.container_id(k).map(|_| ()),
            _ => Ok(()),
        }
    }

    /// `StateMachine::command`: run a node command.
    pub(super) fn node_command(
        &self,
        n: &mut OzNode,
        c: &mut SmCtx<Self>,
        w: &[&str],
    ) -> Result<(), String> {
        match (w, n.scm.as_mut()) {
            (["close-container", k], Some(scm)) => {
                let cid: u32 = parse_num(k, "container")?;
                self.scm_close_container(scm, c, cid)
            }
            (["close-container", ..], Some(_)) => {
                Err("close-container needs a container id, e.g. \"close-container 1\"".into())
            }
            (["close-container", ..], None) => {
                Err("close-container is an SCM command: send it to the SCM node".into())
            }
            (_, Some(_)) => Err("the SCM node takes only \"close-container ID\"".into()),
            (["hold-writes", rest @ ..], None) if rest.len() <= 1 => {
                n.hold
                    .extend(hold_kinds(rest.first().unwrap_or(&"WriteChunk"))?);
                Ok(())
            }
            (["inject-write-result", r], None) => {
                let r = injected(r)?;
                n.inject.push_back(r);
                c.log(
                    LogLevel::Info,
                    format_args!("the next WriteChunk data stage here answers {r} (injected)"),
                );
                Ok(())
            }
            (["mark-unhealthy", k], None) => {
                let cid = self.container_id(k)?;
                self.mark_unhealthy(n, c, cid);
                Ok(())
            }
            (["release-writes"], None) => {
                n.hold.clear();
                for (t, tag) in std::mem::take(&mut n.held) {
                    c.log(
                        LogLevel::Info,
                        format_args!("{tag} released from the hold point: appendTransaction"),
                    );
                    c.resume(t, Ok(()));
                }
                Ok(())
            }
            _ => Err(format!("unknown command \"{}\"", w.join(" "))),
        }
    }
}
