//! The whole machine's CPU time so far, from /proc/stat's first line.

pub use crate::platform::values::CpuTimes;

/// The machine's CPU times now.
pub fn cpu_times() -> Option<CpuTimes> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    Some(parse(stat.lines().next()?))
}

/// /proc/stat's `cpu` line.
fn parse(line: &str) -> CpuTimes {
    let f: Vec<u64> = line.split_whitespace().skip(1).take(8).map(|f| f.parse().unwrap_or(0)).collect();
    let at = |i: usize| f.get(i).copied().unwrap_or(0);
    CpuTimes { total: f.iter().sum(), iowait: at(4), steal: at(7) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_line_sums_its_first_eight_fields() {
        let t = parse("cpu  100 5 50 800 20 1 2 22 0 0");
        assert_eq!(t, CpuTimes { total: 1000, iowait: 20, steal: 22 });
    }
}
