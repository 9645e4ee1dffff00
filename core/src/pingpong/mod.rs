//! A minimal protocol for engine tests and the raw event-loop benchmark: every node keeps one
//! ball bouncing to the next node; optionally each hit is processed on a "worker" executor.

use crate::engine::trace::LogLevel;
use crate::engine::{Ctx, NodeId, Protocol, Topology};
use crate::time::Micros;
use rand::Rng;

pub mod model;

#[derive(Clone, Debug)]
pub struct PingPong {
    /// Process each ball on the "worker" executor (service time `work_us`, deadline `deadline_us`).
    pub use_worker: bool,
    pub work_us: Micros,
    pub deadline_us: Option<Micros>,
    /// Pass the ball to a random node instead of the next one.
    pub random_target: bool,
    /// Every node serves a fresh ball on each 1 s tick (keeps traffic alive under loss).
    pub serve_on_tick: bool,
}

#[derive(Clone, Debug, Default)]
pub struct PpNode {
    pub received: u64,
    pub ticks: u64,
    pub starts: u32,
}

#[derive(Clone, Debug)]
pub struct Ball(pub u64);

impl PingPong {
    fn pass(&self, ctx: &mut Ctx<Self>, hits: u64) {
        let n = ctx.topo.len();
        let to = if self.random_target {
            let r = ctx.rng.random_range(0..n - 1);
            if r >= ctx.me {
                r + 1
            } else {
                r
            }
        } else {
            (ctx.me + 1) % n
        };
        ctx.send(to, Ball(hits + 1));
    }
}

impl Protocol for PingPong {
    type Node = PpNode;
    type Msg = Ball;
    type Task = Ball;
    type Timer = u8;

    fn executors(&self) -> &'static [&'static str] {
        &["worker"]
    }
    fn init_node(&self, _id: NodeId, _topo: &Topology) -> PpNode {
        PpNode::default()
    }
    fn on_start(&self, node: &mut PpNode, ctx: &mut Ctx<Self>, _first: bool) {
        node.starts += 1;
        ctx.set_timer(0, ctx.now + 1_000_000);
        self.pass(ctx, 0);
    }
    fn on_stop(&self, _node: &mut PpNode, ctx: &mut Ctx<Self>) {
        ctx.log(LogLevel::Info, "stopping");
        ctx.set_timer(1, ctx.now + 100_000);
    }
    fn on_exit(&self, _node: &mut PpNode) {}
    fn on_message(&self, node: &mut PpNode, ctx: &mut Ctx<Self>, _from: NodeId, msg: Ball) {
        node.received += 1;
        if self.use_worker {
            let deadline = self.deadline_us.map(|d| ctx.now + d);
            ctx.submit(0, msg, deadline);
        } else {
            self.pass(ctx, msg.0);
        }
    }
    fn on_timer(&self, node: &mut PpNode, ctx: &mut Ctx<Self>, timer: u8) {
        match timer {
            0 => {
                node.ticks += 1;
                ctx.set_timer(0, ctx.now + 1_000_000);
                if self.serve_on_tick {
                    self.pass(ctx, 0);
                }
            }
            _ => ctx.exit(),
        }
    }
    fn on_task(&self, _node: &mut PpNode, ctx: &mut Ctx<Self>, task: Ball) {
        self.pass(ctx, task.0);
    }
    fn service_us(&self, _node: &PpNode, _task: &Ball) -> Micros {
        self.work_us
    }
    fn on_command(&self, node: &mut PpNode, ctx: &mut Ctx<Self>, cmd: &str) -> Result<(), String> {
        match cmd {
            "serve" => {
                self.pass(ctx, node.received);
                Ok(())
            }
            other => Err(format!("unknown command \"{other}\"; try \"serve\"")),
        }
    }
    fn msg_label(&self, _msg: &Ball) -> &'static str {
        "BALL"
    }
    fn task_label(&self, _task: &Ball) -> &'static str {
        "hit"
    }
    fn timer_label(&self, t: &u8) -> &'static str {
        if *t == 0 {
            "tick"
        } else {
            "exit"
        }
    }
    fn render_msg(&self, msg: &Ball, _topo: &Topology) -> String {
        format!("ball #{}", msg.0)
    }
}

/// A topology of `n` nodes named n0, n1, ...
pub fn topology(n: u32) -> Topology {
    Topology {
        names: (0..n).map(|i| format!("n{i}")).collect(),
        dcs: vec!["dc1".into(); n as usize],
        racks: vec!["r1".into(); n as usize],
        seeds: vec![0],
    }
}
