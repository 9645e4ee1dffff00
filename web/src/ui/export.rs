//! Exporting the trace without freezing the tab: the JSON lines are written in chunks of about
//! [`SLICE_MS`] of work, each handed to the browser as its own `Blob` (the file is a `Blob` of
//! these: no single 200 MB string is ever built or copied), with a yield to the event loop
//! between chunks so the page keeps painting and the progress shows. A change of session
//! cancels it.

use crate::kit::Handle;
use crate::model::export;
use crate::platform;
use std::cell::RefCell;
use std::rc::Rc;

/// Work per chunk before yielding to the browser.
pub const SLICE_MS: f64 = 40.0;

/// Progress of a running export: (records written, records to write).
pub type Progress = Option<(usize, usize)>;

struct Job {
    s: Handle,
    next: usize,
    end: usize,
    total: usize,
    session_rev: u64,
    parts: js_sys::Array,
    file: String,
    progress: Rc<dyn Fn(Progress)>,
    cancelled: Rc<RefCell<bool>>,
}

/// Start exporting the trace up to the cursor; `progress` is told each step and `None` at the
/// end. Setting `cancelled` stops it at the next chunk.
pub fn start(s: Handle, progress: Rc<dyn Fn(Progress)>, cancelled: Rc<RefCell<bool>>) {
    let (written, total, session_rev, file) = {
        let m = s.model.borrow();
        let t = m.run.engine.trace();
        let (w, tot) = export::export_span(t, t.rec_index_at_step(m.cursor()));
        (
            w,
            tot,
            m.session_rev,
            format!("{}-trace.jsonl", m.file_stem()),
        )
    };
    *cancelled.borrow_mut() = false;
    progress(Some((0, written)));
    let job = Job {
        s,
        next: 0,
        end: written,
        total,
        session_rev,
        parts: js_sys::Array::new(),
        file,
        progress,
        cancelled,
    };
    schedule(job);
}

fn schedule(job: Job) {
    gloo::timers::callback::Timeout::new(0, move || step(job)).forget();
}

fn step(mut job: Job) {
    if *job.cancelled.borrow() {
        (job.progress)(None);
        return;
    }
    let changed = job.s.model.borrow().session_rev != job.session_rev;
    if changed {
        (job.progress)(None);
        job.s.dispatch(crate::model::Msg::ShowInfo(
            "Trace export stopped: the session changed while it was written.".into(),
        ));
        return;
    }
    let t0 = platform::now_ms();
    let mut chunk = String::with_capacity(4 << 20);
    {
        let m = job.s.model.borrow();
        let (trace, topo) = (m.run.engine.trace(), &m.run.scenario.topo);
        while job.next < job.end && platform::now_ms() - t0 < SLICE_MS {
            let to = (job.next + 2_000).min(job.end);
            export::trace_jsonl_chunk(trace, topo, job.next, to, &mut chunk);
            job.next = to;
        }
    }
    if job.next >= job.end {
        if let Some(l) = export::truncation_line(job.end, job.total) {
            chunk.push_str(&l);
        }
    }
    // Each chunk becomes a Blob at once (the browser encodes and stores this chunk only); the
    // file is a Blob of these Blobs, which refers to them without one large copy at the end.
    let part = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(&chunk));
    drop(chunk);
    match web_sys::Blob::new_with_str_sequence(&part) {
        Ok(b) => job.parts.push(&b),
        Err(_) => job.parts.push(&part.get(0)),
    };
    if job.next < job.end {
        (job.progress)(Some((job.next, job.end)));
        schedule(job);
    } else {
        platform::download_parts(&job.file, &job.parts, "application/x-ndjson");
        (job.progress)(None);
    }
}
