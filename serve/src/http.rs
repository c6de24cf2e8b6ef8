//! Streamable HTTP.
