//! squad export play
