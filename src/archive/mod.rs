//! ZIP archives of packages: the canonical writer of `squad pack` and the checked reader used
//! to digest and verify archives.

pub mod reader;
pub mod writer;
