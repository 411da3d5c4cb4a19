//! The memory guard's estimate against the measured peak: within a factor of 1.5 at n = 5000.
//! (Alone in its file: the peak is read from the kernel's accounting of this process's children.)

use std::process::Command;

#[test]
fn estimate_is_within_one_and_a_half_of_the_peak_at_5000() {
    let out = Command::new(assert_cmd::cargo::cargo_bin("fibtree")).args(["count", "5000", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let estimate = report["memory_estimate_bytes"].as_u64().unwrap() as f64;
    // SAFETY: getrusage only writes the struct it is given.
    let peak = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage.ru_maxrss as f64 * 1024.0 // kilobytes on Linux
    };
    let ratio = peak / estimate;
    println!("estimate {estimate} bytes, peak {peak} bytes, ratio {ratio:.2}");
    assert!((1.0 / 1.5..=1.5).contains(&ratio), "peak / estimate = {ratio:.2}");
}
