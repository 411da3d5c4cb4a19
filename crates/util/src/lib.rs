//! General helpers that fibtree's library and its command line both use, none of them about the
//! game: numbers as people write them ([`parse_whole`], [`parse_number`]), sizes in words
//! ([`human_bytes`], [`parse_bytes`]), files that are whole or absent ([`AtomicFile`]), the files fibtree names itself ([`open_own`]), a small seeded generator
//! ([`SplitMix64`]), the system's random source ([`system_seed`]) and a checksum ([`fnv1a`]).
//!
//! ```
//! assert_eq!(fibtree_util::parse_number("10^9+7"), Ok(1_000_000_007));
//! assert_eq!(fibtree_util::human_bytes(3 << 20), "3.0 MiB");
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod bytes;
mod checksum;
mod files;
mod numbers;
mod own;
mod rng;

pub use bytes::{human_bytes, parse_bytes};
pub use checksum::{Fnv1a, fnv1a};
pub use files::{
    AtomicFile, beside, descriptor_named, folder_of, is_temporary_of, probe_folder, probe_own,
    remove_stale_temporaries, resolve_links, write_atomically,
};
pub use numbers::{
    NUMBER_FORMS, NotWhole, SHOWN_CHARS, counted, decimal_digits, parse_modulus, parse_number, parse_whole, quoted,
};
pub use own::{in_the_way, not_a_plain_file, open_existing_own, open_own, still_names};
pub use rng::{SplitMix64, fresh_seed, system_seed};
