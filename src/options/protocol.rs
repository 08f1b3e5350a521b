//! `--protocol`: how a SQL client sends its statements, as pgbench's `-M` (PostgreSQL's
//! client reads it; an engine-neutral option, so the launch options can carry it).

/// How statements travel, as pgbench's `-M`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// One Query message with the values spelled into the SQL text.
    Simple,
    /// Parse, Bind, Execute of an unnamed statement every time.
    Extended,
    /// Parse once, then Bind and Execute of the named statement.
    #[default]
    Prepared,
}
