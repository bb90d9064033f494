//! Comparing two capability sets.
