//! The `fibtree` command line as a library of its own package (fibtree-cli, the workspace's root):
//! what `src/main.rs` runs ([`run`], then [`fail`] for an error), over the library fibtree's public
//! API. Its modules are the command line's; none of them is an API for other programs, which use
//! the library fibtree.

#![deny(unsafe_code)]

mod cli;

pub use cli::{fail, run, say_error};
