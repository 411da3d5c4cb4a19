//! fibtree-core: the engines that count the winning first moves of the Fibonacci tree game, exactly.
//!
//! c(n, g) is the number of non-root nodes of the Fibonacci tree T(n) whose deletion (with its
//! subtree) leaves a position of Grundy value g. This crate holds what computes it: the game
//! ([`grundy`], [`tree_size`], [`count_parity`], [`known_zeros`], [`support`]), the plan of the
//! states a count needs ([`Plan`]), the engines (exact: [`Engine`]; modular; from both ends, cut
//! where [`Cut`] says, [`Halves`]), their kernels compiled for each instruction set ([`Isa`]) on the
//! machine set once ([`Machine`]), the memory a run may use ([`Limit`], [`Guard`]) and the Chinese
//! remainder theorem's mathematics ([`primes`], [`primes_for`], [`garner`]). It reads no
//! environment variable and names no command-line flag; its errors are its own ([`Error`]).
//!
//! **One door.** Every count goes through a [`Request`]: its targets, what to compute (exact values,
//! residues, or both), the cut, the plan or how to make it, the hooks, the memory it may use.
//! [`Request::plan`] decides the route (whether the modular engine needs the plan, how much of the
//! plan to keep, where a count from both ends is cut, what starts while the plan is made), checks
//! the memory at each step and makes the plan; [`Planned::run`] runs the route.
//!
//! ```
//! use fibtree_core::{Engine, Request};
//! let mut values = Vec::new();
//! Request::exact(&[(10, 0), (300, 0)], Engine::Blocked).plan()?.run(|_, value, _| {
//!     values.push(value.unwrap().to_string());
//!     Ok(())
//! })?;
//! assert_eq!(values[0], "17"); // f(10): the winning first moves of T(10)
//! # Ok::<(), fibtree_core::Error>(())
//! ```
//!
//! Besides the door: the walk over every state a count needs ([`Counts`], for naming moves), and
//! what a count will cost before it runs ([`estimate`]).

#![warn(missing_docs)]
#![deny(unsafe_code)]

mod cost;
mod counts;
mod crt;
mod engines;
mod error;
pub mod estimate;
mod game;
mod graph;
mod guard;
mod hooks;
#[cfg(feature = "kernels")]
pub mod kernels;
#[cfg(not(feature = "kernels"))]
mod kernels;
mod limit;
mod machine;
mod plan;
mod request;
mod targets;

pub use counts::Counts;
pub use crt::{check_below_tree, garner, primes, primes_for};
pub use engines::blocked::TileRule;
pub use engines::modular::MODULUS_LIMIT;
pub use engines::{Cut, Engine, Halves};
pub use error::{Error, Param, Result};
pub use game::{MAX_N, P998244353, count_parity, grundy, tree_size};
pub use graph::Summary;
pub use guard::{Bound, Guard, Limit};
pub use hooks::Hooks;
pub use kernels::{IsaChoice, isa, isa_choice};
pub use machine::{Isa, Machine, cores};
pub use plan::{Plan, known_zeros, support};
pub use request::{Planned, Position, Request, Unread};
