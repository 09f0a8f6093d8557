//! Nothing but a test (tests/stats.rs): perfdata-core as a dependency without default features.
