//! `Gossiper.examineGossiper`: a SYN's digests compared with the local summary column, the
//! common heartbeat case in runs of its own.

use super::*;

/// `Gossiper.examineGossiper`: compare each remote digest with the local map (`summaries`: the
/// map's `Summary` column, see `GNode::summaries`).
pub fn examine(
    map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
    summaries: &[Option<Summary>],
    digests: &Digests,
) -> Examined {
    examine_into(map, summaries, digests, Examined::default())
}

/// [`examine`] into `out`'s buffers (emptied first; spare ones from `Pool`).
///
/// Out of line: inlined into the engine's step, its loops reloaded slice pointers from the stack
/// (-0.4% of a 251-node run's instructions out of line, docs/PERFORMANCE.md).
#[inline(never)]
pub fn examine_into(
    map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
    summaries: &[Option<Summary>],
    digests: &Digests,
    mut out: Examined,
) -> Examined {
    // Sized up front: an ACK in a big cluster carries hundreds of entries.
    out.requests.clear();
    out.requests.reserve(digests.len());
    out.sends.reset(digests.len());
    out.newer = 0;
    out.asked_all = 0;
    // When the digests cover much of the map, one sequential sweep brings the summaries into the
    // cache first; and the SYN's column (its sender's, written when the round began): read in
    // order by the loop below, it waited on memory at each line (a third of this function's
    // time, issue 44).
    if warm_for(summaries, digests.len()) {
        warm(&digests.column);
    }
    // Both columns side by side; remote endpoints past the end of the local column are unknown
    // here.
    let (paired, beyond) = digests
        .column
        .split_at(digests.column.len().min(summaries.len()));
    let mut ep = 0;
    while ep < paired.len() {
        // A run of the common case (the same generation, no application state the remote
        // lacks) in a loop of its own: the lists' lengths stay in registers, as no call is
        // made; the run stops before the first other digest.
        ep = common_run(&mut out, paired, summaries, ep);
        let Some((Some(r), l)) = paired.get(ep).zip(summaries.get(ep)) else {
            ep += 1;
            continue;
        };
        let (id, remote_max) = (ep as NodeId, r.max_version());
        match *l {
            Some(l) if l.generation == r.generation => {
                // An application state the remote lacks (what `common_run` leaves): the entry
                // needs the state itself. Or, were the lists ever full, the common case.
                if l.max_state_version <= remote_max && remote_max > l.max_version() {
                    out.requests.push(Digest {
                        ep: id,
                        generation: r.generation,
                        max_version: l.max_version(),
                    });
                }
                out.sends.push_newer(l, map, id, remote_max);
            }
            // Ours is newer: send everything.
            Some(l) if r.generation < l.generation => send_all(&mut out, l, map, id),
            // Unknown here, or the remote has a newer generation (a restart): request everything.
            _ => ask_all(&mut out, id, r.generation),
        }
        ep += 1;
    }
    for (i, r) in beyond.iter().enumerate() {
        if let Some(r) = r {
            ask_all(&mut out, (paired.len() + i) as NodeId, r.generation);
        }
    }
    out
}

/// `examine_into`'s common case from endpoint `from` on, up to the first digest (the index
/// returned) that is known here with the same generation but an application state the remote
/// lacks, of another generation, or unknown here. Heartbeats only: whether the remote or the
/// local side is newer is a coin flip for the branch predictor, so both outcomes are written
/// and kept or not without a branch: a request when the remote is newer, the heartbeat
/// (`newer_than` without states) when the local one is.
#[inline(always)]
fn common_run(
    out: &mut Examined,
    paired: &[Option<Summary>],
    summaries: &[Option<Summary>],
    from: usize,
) -> usize {
    let start = out.sends.states.len() as u32;
    let (requests, entries) = (&mut out.requests, &mut out.sends.entries);
    let (mut nr, mut ns) = (requests.len(), entries.len());
    // Each digest adds at most one entry to each list: a run of `room` digests fits in the
    // lists' spare capacity (`examine_into` reserved one entry per digest, so a run is only cut
    // short by this when that is wrong; the caller's slow path then goes on).
    let room = (requests.capacity() - nr).min(entries.capacity() - ns);
    let end = paired
        .len()
        .min(summaries.len())
        .min(from.saturating_add(room));
    let (rp, sp) = (requests.as_mut_ptr(), entries.as_mut_ptr());
    let mut ep = from;
    while ep < end {
        let (r, l) = (paired[ep], summaries[ep]);
        let Some(r) = r else {
            ep += 1;
            continue;
        };
        let remote_max = r.max_version();
        let Some(l) = l else { break };
        if l.generation != r.generation || l.max_state_version > remote_max {
            break;
        }
        let local_max = l.max_version();
        // SAFETY: fewer than `room` digests since `from`, each adding at most one entry to
        // each list: both slots are within the lists' capacity; the lengths are set below to
        // cover only the slots kept, each written here.
        unsafe {
            rp.add(nr).write(Digest {
                ep: ep as NodeId,
                generation: r.generation,
                max_version: local_max,
            });
            sp.add(ns).write(DeltaEntry {
                ep: ep as NodeId,
                hb: l.hb(),
                start,
                len: 0,
            });
        }
        nr += (remote_max > local_max) as usize;
        ns += (l.hb_version > remote_max) as usize;
        ep += 1;
    }
    // SAFETY: every slot below `nr` and `ns` is initialised (written above or before the run),
    // and within the capacity (see `room`).
    unsafe {
        requests.set_len(nr);
        entries.set_len(ns);
    }
    ep
}

/// `examine_into`'s rare case of a newer generation here (out of line: the common loop keeps
/// its registers).
#[cold]
#[inline(never)]
fn send_all(
    out: &mut Examined,
    l: Summary,
    map: &(impl Index<usize, Output = Option<EndpointState>> + ?Sized),
    ep: NodeId,
) {
    out.newer += out.sends.push_newer(l, map, ep, 0) as u32;
}

/// `examine_into`'s rare case of an endpoint unknown here or of an older generation.
#[cold]
#[inline(never)]
fn ask_all(out: &mut Examined, ep: NodeId, generation: u32) {
    out.asked_all += 1;
    out.requests.push(Digest {
        ep,
        generation,
        max_version: 0,
    });
}
