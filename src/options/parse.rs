//! Value parsers of counts and data-set sizes: the CLI's flags and `--sweep` values
//! are checked by the same functions, so both refuse a value alike.

/// A whole number from 1 to `max`; `what` names the option in the message.
pub fn bounded(s: &str, what: &str, max: u64) -> Result<u64, String> {
    match s.trim().parse::<i64>() {
        Ok(v) if v >= 1 && v as u64 <= max => Ok(v as u64),
        Ok(v) if v >= 1 => Err(format!("{what} must be at most {max} (got {s})")),
        Ok(_) => Err(format!("{what} must be at least 1 (got {s})")),
        Err(_) => Err(format!("{what} must be a whole number of at least 1 (got '{s}')")),
    }
}

/// `--clients`: concurrent clients, 1 to 10,000.
pub fn parse_clients(s: &str) -> Result<u32, String> {
    bounded(s, "clients", 10_000).map(|v| v as u32)
}

/// `--scale`: pgbench scale units, 1 to 100,000.
pub fn parse_scale(s: &str) -> Result<u32, String> {
    bounded(s, "scale", 100_000).map(|v| v as u32)
}

/// `--tables`: oltp tables, 1 to 10,000.
pub fn parse_tables(s: &str) -> Result<u32, String> {
    bounded(s, "tables", 10_000).map(|v| v as u32)
}

/// Ids are SQL integers (32-bit) and a range reads up to id + 99.
pub fn parse_table_size(s: &str) -> Result<u64, String> {
    bounded(s, "table-size", 2_000_000_000)
}

/// Record numbers are hashed into 64-bit keys; two billion keeps a load within reason.
pub fn parse_records(s: &str) -> Result<u64, String> {
    bounded(s, "records", 2_000_000_000)
}
