//! The CPU time of a run's process group, read while it runs: every process of the machine's
//! `/proc/PID/stat` read, those of the group kept (the program's process leads it, and what it
//! starts stays in it unless it moves, by `setsid` or `setpgid`: those are not counted), and from
//! them two lower bounds of the group's CPU time, the larger kept as it grows ([`GroupCpu`]).

use std::collections::HashMap;
use std::io::Read;
use std::time::Duration;

/// What `/proc/PID/stat` says of one process of a watched group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Sample {
    pub(super) pid: i32,
    /// Its process group.
    pub(super) group: i32,
    /// When it started, in clock ticks after the boot: with `pid`, a process, whose id may be reused.
    start: u64,
    /// The CPU time of its threads, user and system, in seconds.
    own: f64,
    /// The CPU time of the children it waited for (and of theirs), in seconds.
    waited: f64,
}

/// The processes of the process groups `groups`, from every `/proc/PID/stat` of the machine.
///
/// Cost: the read of one small file a process of the machine (some 10 µs each).
pub(super) fn scan(groups: &[i32]) -> Vec<Sample> {
    let tick = 1.0 / rustix::param::clock_ticks_per_second().max(1) as f64;
    let mut found = Vec::new();
    if groups.is_empty() {
        return found;
    }
    let mut text = String::with_capacity(512);
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<i32>().ok()) else { continue };
        text.clear();
        // a process that ended since the listing is no error
        let Ok(mut file) = std::fs::File::open(entry.path().join("stat")) else { continue };
        if file.read_to_string(&mut text).is_err() {
            continue;
        }
        if let Some(sample) = parse_stat(pid, &text, tick).filter(|s| groups.contains(&s.group)) {
            found.push(sample);
        }
    }
    found
}

/// A `/proc/PID/stat` line read: the fields after the command's name (in parentheses, itself perhaps
/// holding spaces or parentheses) are the state, the parent, the group, ..., user and system time
/// (the 14th and 15th fields), those of the children waited for (16th, 17th), ..., the start (22nd);
/// times in clock ticks of `tick` seconds.
fn parse_stat(pid: i32, text: &str, tick: f64) -> Option<Sample> {
    let fields: Vec<&str> = text.get(text.rfind(')')? + 1..)?.split_whitespace().collect();
    let number = |i: usize| fields.get(i)?.parse::<u64>().ok();
    let group = fields.get(2)?.parse().ok()?;
    let own = (number(11)? + number(12)?) as f64 * tick;
    let waited = (number(13)? + number(14)?) as f64 * tick;
    Some(Sample { pid, group, start: number(19)?, own, waited })
}

/// The CPU time a run's process group has used, as far as its looks saw: the largest of two lower
/// bounds, each of disjoint processes' time, over every look:
/// - the time of the processes of the group now, each with that of the children it waited for (a
///   process that ended and that no process of the group waited for is lost from it);
/// - the time of every process seen in the group, at its last look (what it used after, and the
///   processes that came and went between looks, are lost from it).
#[derive(Debug, Default)]
pub(super) struct GroupCpu {
    /// The group's CPU time, in seconds: at least what its processes used.
    pub(super) seconds: f64,
    /// Each process seen, by id and start: its own time at its last look.
    seen: HashMap<(i32, u64), f64>,
    /// The sum of `seen`.
    seen_total: f64,
    /// Whether the last look found a process in the group other than its leader.
    pub(super) others: bool,
}

impl GroupCpu {
    /// Takes a look: `samples`, the processes of the group now. Cost O(samples).
    pub(super) fn update<'a>(&mut self, samples: impl Iterator<Item = &'a Sample>) {
        let (mut live, mut count) = (0.0, 0);
        for sample in samples {
            live += sample.own + sample.waited;
            count += 1;
            let before = self.seen.insert((sample.pid, sample.start), sample.own).unwrap_or(0.0);
            self.seen_total += sample.own - before;
        }
        self.seconds = self.seconds.max(live).max(self.seen_total);
        self.others = count > 1;
    }
}

/// How long after a look the next is taken: [`LOOK_EVERY`] where a run has a CPU time limit, else
/// [`LOOK_EVERY_UNLIMITED`]; at least 20 times the last look's time, so that looking takes at most a
/// twentieth of the watching thread (on a machine of many processes, a limit is then caught later).
pub(super) fn next_look(limited: bool, took: Duration) -> Duration {
    let every = if limited { LOOK_EVERY } else { LOOK_EVERY_UNLIMITED };
    every.max(took * 20)
}

/// The time between looks at the runs' CPU time where one has a limit: how far past the limit a
/// run may get, in wall time, before it is stopped.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// The time between looks where no run has a limit (the CPU time reported, of what a run's process
/// did not wait for).
const LOOK_EVERY_UNLIMITED: Duration = Duration::from_millis(500);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_whatever_the_name() {
        let line = "4242 (a (b) c) R 10 4240 4240 0 -1 4194304 1 2 3 4 150 50 7 3 20 0 1 0 987654 1 2\n";
        let sample = parse_stat(4242, line, 0.01).unwrap();
        assert_eq!((sample.group, sample.start), (4240, 987654));
        assert!((sample.own - 2.0).abs() < 1e-9 && (sample.waited - 0.1).abs() < 1e-9, "{sample:?}");
        assert_eq!(parse_stat(1, "1 (x) R 0", 0.01), None);
    }

    #[test]
    fn the_larger_lower_bound_is_kept_as_it_grows() {
        let sample = |pid, own, waited| Sample { pid, group: 7, start: pid as u64, own, waited };
        let mut cpu = GroupCpu::default();
        // a shell and a child burning
        cpu.update([sample(7, 0.1, 0.0), sample(8, 1.0, 0.0)].iter());
        assert!((cpu.seconds - 1.1).abs() < 1e-9 && cpu.others);
        // the child ended, not waited for: its last look stays counted
        cpu.update([sample(7, 0.1, 0.0)].iter());
        assert!((cpu.seconds - 1.1).abs() < 1e-9 && !cpu.others);
        // waited for: its whole time is the shell's children's
        cpu.update([sample(7, 0.2, 1.5)].iter());
        assert!((cpu.seconds - 1.7).abs() < 1e-9, "{cpu:?}");
        // a look never lowers it
        cpu.update([].iter());
        assert!((cpu.seconds - 1.7).abs() < 1e-9);
    }

    #[test]
    fn this_process_is_found_in_its_group() {
        let me = rustix::process::getpid().as_raw_nonzero().get();
        let group = rustix::process::getpgrp().as_raw_nonzero().get();
        let found = scan(&[group]);
        assert!(found.iter().any(|s| s.pid == me && s.group == group), "{found:?}");
        assert!(scan(&[]).is_empty());
    }
}
