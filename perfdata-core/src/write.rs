//! Writer.
