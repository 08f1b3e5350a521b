//! Latency histograms as the results file stores them (HdrHistogram, V2 deflate, base64),
//! and the summary read from one.

use crate::error::Result;
use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use serde::{Deserialize, Serialize};

/// An empty latency histogram: nanoseconds, 1 ns to 1 hour, 3 significant digits.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
}

/// Encode a histogram for the results file.
pub fn encode_histogram(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    match V2DeflateSerializer::new().serialize(h, &mut buf) {
        Ok(_) => base64::engine::general_purpose::STANDARD.encode(buf),
        Err(_) => String::new(),
    }
}

/// Decode a histogram from the results file.
pub fn decode_histogram(s: &str) -> Result<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| bad_input!("a latency histogram in the results file is not base64: {e}"))?;
    Deserializer::new()
        .deserialize(&mut std::io::Cursor::new(bytes))
        .map_err(|e| bad_input!("a latency histogram in the results file is damaged: {e:?}"))
}

/// Latency figures in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Mean.
    pub avg: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

impl Latency {
    /// Summarize a nanosecond histogram in milliseconds.
    pub fn of(h: &Histogram<u64>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        let ms = |ns: f64| ns / 1e6;
        Latency {
            avg: ms(h.mean()),
            p50: ms(h.value_at_quantile(0.50) as f64),
            p95: ms(h.value_at_quantile(0.95) as f64),
            p99: ms(h.value_at_quantile(0.99) as f64),
            max: ms(h.max() as f64),
        }
    }
}
