//! The run's options as the results file keeps them, and the one list of them in words
//! that reports and `compare` share.

use crate::options::counters::CountersOptions;
use crate::options::driving::Driving;
pub use crate::options::own::OptionField;
use serde::{Deserialize, Serialize};

/// How clients were driven in every cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOptions {
    /// How clients were driven: measured time or transactions, warm-up, rate, seed,
    /// confidence… under the keys the file has always had (`duration_s`, `warmup_s`).
    #[serde(flatten)]
    pub driving: Driving,
    /// Repeats per cell.
    pub repeat: u32,
    /// Each workload's own options (`scale`, `tables`, `table_size`, `records`,
    /// `distribution`, …), their keys at this level of the file, as the workloads write
    /// and read them (`workload::options`); the counters workloads' are `counters`.
    #[serde(flatten)]
    pub workload: serde_json::Map<String, serde_json::Value>,
    /// Options of the counters workloads, when the run has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<CountersOptions>,
    /// The baseline, as `PROFILE` or `ENGINE:PROFILE`.
    pub baseline: String,
    /// `--precision`: the half-width asked for, as a fraction of the median (0.03 for ±3%);
    /// `repeat` is then the rounds run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// `--precision`: no round is started that would end after this many seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_time_s: Option<f64>,
    /// `--precision`: repeats every cell gets before it may stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_repeat: Option<u32>,
    /// `--precision`: the most repeats a cell gets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_repeat: Option<u32>,
    /// `dbrace merge`: how many shards' files this one adds up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    /// `--budget`: the wall time the rounds had, seconds; each comparison was looked at as
    /// rounds came in and left the rounds once settled (`repeat` is then the rounds run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
}

impl RunOptions {
    /// How this run's comparisons are judged: at the looks of a budget, or once.
    pub fn judging(&self) -> crate::stats::Judging {
        match self.budget_s {
            Some(_) => crate::stats::Judging::Looks,
            None => crate::stats::Judging::Once,
        }
    }
}

impl RunOptions {
    /// Every option of the run, in the order reports list them, the workloads' `own`
    /// among them: the one definition the environment table and `compare` share.
    pub fn fields(&self, own: Vec<OptionField>) -> Vec<OptionField> {
        let mut f = Vec::new();
        let mut push = |label, value: String, measures| f.push(OptionField { label, value, measures });
        let d = &self.driving;
        match (d.duration, d.transactions) {
            (_, Some(t)) => push("measured", format!("{t} transactions per client"), true),
            (Some(t), None) => push("measured", format!("{} s per repeat", t.as_secs_f64()), true),
            _ => {}
        }
        push("warm-up", format!("{} s", d.warmup.as_secs_f64()), true);
        match self.budget_s {
            Some(b) => push("budget", format!("{b} s, {} rounds run", self.repeat), false),
            None => push("repeats", format!("{} per cell, in rounds", self.repeat), false),
        }
        if d.fresh {
            push("servers", "a fresh instance and data set every repeat".into(), true);
        }
        if let Some(p) = self.precision {
            push("precision", format!("±{} of the median", crate::stats::precision_percent(p)), false);
        }
        if let Some(n) = self.min_repeat {
            push("min repeat", n.to_string(), false);
        }
        if let Some(n) = self.max_repeat {
            push("max repeat", n.to_string(), false);
        }
        if let Some(t) = self.max_time_s {
            push("max time", format!("{t} s"), false);
        }
        push("confidence", crate::stats::percent(d.confidence), false);
        push("rate", d.rate.map_or("none (closed loop)".into(), |r| format!("{r} tps")), true);
        let limit = d.latency_limit.map(|l| l.as_secs_f64() * 1e3);
        push("latency limit", limit.map_or("none".into(), |l| format!("{l} ms")), true);
        let tries = match d.max_tries {
            None => "until 10 s of conflicts".to_string(),
            Some(0) => "unlimited".to_string(),
            Some(n) => n.to_string(),
        };
        push("max tries", tries, true);
        if d.reconnect {
            push("reconnect", "on a lost connection".into(), false);
        }
        for w in own {
            push(w.label, w.value, w.measures);
        }
        if let Some(c) = &self.counters {
            push("counters keys", c.keys.to_string(), true);
            push("counters values", c.values.to_string(), true);
            push("counters spread", crate::options::counters::show_span(c.spread_s), true);
            push("counters range", c.range.to_string(), true);
            push("counters schema", format!("{:?}", c.schema).to_lowercase(), true);
        }
        if let Some(i) = d.log_interval {
            push("log interval", format!("{} s", i.as_secs_f64()), false);
        }
        if let Some(s) = &d.shard {
            push("shard", format!("{} (this process's share of the clients and the rate)", s.label()), false);
        }
        if let Some(n) = self.shards {
            push("shards", format!("{n} load generators, merged"), false);
        }
        if let Some(t) = d.start_at {
            push("start at", humantime::format_rfc3339_millis(t).to_string(), false);
        }
        push("seed", d.seed().to_string(), false);
        push("baseline", self.baseline.clone(), false);
        f
    }
}
