//! squad import play
