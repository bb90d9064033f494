//! Installing packages (issue in progress): where scopes live and the cross-process id lock
//! shared with OpenCorvus. The install transaction itself builds on these.

pub mod lock;
pub mod scope;
