//! `bench --svg` and `bench --pin`: the plot of speedup and efficiency against threads (a series per
//! n, the prediction drawn, the machine named, the path checked before any run), and the workers
//! pinned where the run's own report says that the process has the CPUs for them.

use serde_json::Value;

use crate::common::*;

/// The texts of an SVG document, each element's text joined and trimmed.
fn texts(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.descendants().filter(|t| t.is_text()).filter_map(|t| t.text()).collect::<String>().trim().into())
        .collect()
}

/// The colours of the lines 2 pixels wide (the series'; the frame, grid and marks are 1 wide), with
/// how many of them in each colour are dashed (predictions) and how many solid (measurements).
fn series_colours(doc: &roxmltree::Document) -> std::collections::BTreeMap<String, (usize, usize)> {
    let mut colours = std::collections::BTreeMap::new();
    for line in doc.descendants().filter(|n| n.has_tag_name("polyline") && n.attribute("stroke-width") == Some("2")) {
        let entry = colours.entry(line.attribute("stroke").unwrap_or_default().to_string()).or_insert((0, 0));
        if line.attribute("stroke-dasharray").is_some() {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }
    colours
}

/// `--svg` beside `--json`: for each n a series of its own colour, measured (a dot for each row in
/// each panel, and one in the legend) and predicted (a dashed line, named in the legend with the
/// threads its graph was cut for); the machine of the JSON in the caption; the file alone in its
/// folder.
#[test]
fn the_plot_has_a_series_for_each_n_and_the_prediction() {
    let dir = TempDir::new("bench-svg");
    let file = dir.join("scaling.svg");
    let args = ["bench", "--n", "300", "--n", "500", "--threads", "1", "--threads", "2", "--runs", "1"];
    let json = success_json(&[&args[..], &["--json", "--no-progress", "--svg", &file]].concat());
    assert_eq!(dir.names(), ["scaling.svg"], "the file, and no temporary left behind");
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("not well-formed XML: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts = texts(&doc);
    let has = |want: &str| texts.iter().any(|t| t.contains(want));
    assert!(has("speedup and efficiency against threads: f(n) for n = 300, 500"), "{texts:?}");
    let machine = &json["machine"];
    let cores = machine["cores"].as_u64().unwrap();
    let cpu = machine["cpu"].as_str().unwrap_or("unknown CPU");
    let cores = if cores == 1 { "1 core".to_string() } else { format!("{cores} cores") };
    let kernel = json["kernel"].as_str().unwrap();
    assert!(has(&format!("{cpu}, {cores}")) && has(&format!("kernel {kernel}")), "{texts:?}");
    for n in [300, 500] {
        assert!(has(&format!("n={n}: measured")), "{n}: {texts:?}");
        assert!(has(&format!("n={n}: predicted (task graph cut for 2 threads)")), "{n}: {texts:?}");
    }
    for label in ["speedup, log scale", "efficiency (speedup / threads)", "ideal: speedup = threads"] {
        assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
    }
    assert!(!has("no 1-thread run"), "{texts:?}");
    // a colour for each n, in each panel a dashed prediction and a measured line
    let colours = series_colours(&doc);
    assert_eq!(colours.len(), 2, "{colours:?}");
    assert!(colours.values().all(|&lines| lines == (2, 2)), "{colours:?}");
    // a dot for each measured row in each panel, and one for each n in the legend
    let rows = json["results"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{json}");
    assert!(rows.iter().all(|r| r["speedup"].is_f64()), "{json}");
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("circle")).count(), 2 * rows.len() + 2, "{text:.2000}");
}

/// Without a 1-thread row nothing measured is drawn, the caption says so, and the prediction is.
#[test]
fn without_one_thread_the_prediction_alone() {
    let dir = TempDir::new("bench-svg-one");
    let file = dir.join("scaling.svg");
    let out = success(&["bench", "--n", "300", "--threads", "2", "--runs", "1", "--no-progress", "--svg", &file]);
    assert!(out.contains("machine  "), "the table on stdout as without --svg: {out}");
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let texts = texts(&doc);
    let has = |want: &str| texts.iter().any(|t| t.contains(want));
    assert!(has("no 1-thread run of n=300: no measured speedup drawn, its prediction only"), "{texts:?}");
    assert!(has("n=300: predicted (task graph cut for 2 threads)"), "{texts:?}");
    assert!(!has("n=300: measured"), "{texts:?}");
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("circle")).count(), 0);
    let colours = series_colours(&doc);
    assert_eq!(colours.values().collect::<Vec<_>>(), [&(2, 0)], "the prediction alone, in each panel: {colours:?}");
}

/// A path that cannot be written is refused naming --svg before any run: a run of f(20000) a
/// thousand times would take hours, the refusal comes at once, and nothing is written.
#[test]
fn a_bad_plot_path_is_refused_before_any_run() {
    let dir = TempDir::new("bench-svg-bad");
    let long = ["bench", "--n", "20000", "--threads", "1", "--runs", "1000"];
    let missing = dir.join("missing/scaling.svg");
    let err = usage_error(&[&long[..], &["--svg", &missing]].concat(), "--svg");
    assert!(err.contains("does not exist"), "{err}");
    let folder = dir.join("");
    usage_error(&[&long[..], &["--svg", &folder]].concat(), "--svg");
    let read_only = dir.file("old.svg", "<svg/>");
    let mut permissions = std::fs::metadata(&read_only).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&read_only, permissions).unwrap();
    let err = usage_error(&[&long[..], &["--svg", &read_only]].concat(), "--svg");
    assert!(err.contains("read-only"), "{err}");
    let same = dir.join("both");
    let err = usage_error(&[&long[..], &["--svg", &same, "-o", &same]].concat(), "--svg");
    assert!(err.contains("also the file of --output"), "{err}");
    assert_eq!(std::fs::read_to_string(&read_only).unwrap(), "<svg/>");
    assert_eq!(dir.names(), ["old.svg"]);
}

/// `--pin`: each row pinned, worker i on the i-th of the CPUs the report lists, where it has that many
/// (and nothing failed), else not pinned, said once on stderr; the same rows without `--pin` say
/// nothing of it.
#[test]
fn pinned_rows_where_the_process_has_the_cpus() {
    let args = ["bench", "--n", "300", "--threads", "1", "--threads", "2", "--threads", "64", "--runs", "1"];
    let output = fibtree(&[&args[..], &["--pin", "--json", "--no-progress"]].concat());
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let json = json_line(&args, &stdout(&output));
    let pin = &json["pin"];
    let cpus: Vec<u64> = pin["cpus"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).collect();
    let mut distinct = cpus.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), cpus.len(), "each CPU once: {pin}");
    let failed = pin["failed"].as_str();
    println!("CPUs {cpus:?}, failed {failed:?}");
    for r in json["results"].as_array().unwrap() {
        let threads = r["threads"].as_u64().unwrap() as usize;
        assert_eq!(r["checked"], true, "{r}");
        match r["pinned"].as_bool().unwrap() {
            true => assert_eq!(r["cpus"], serde_json::json!(cpus[..threads]), "worker i on the i-th: {r}"),
            false => {
                assert_eq!(r["cpus"], Value::Null, "{r}");
                assert!(threads > cpus.len() || failed.is_some(), "unpinned only for a reason: {r}, {pin}");
            }
        }
        if failed.is_none() {
            assert_eq!(r["pinned"], threads <= cpus.len(), "{r}");
        }
    }
    let too_many = format!("--pin: 64 threads are more than the {} CPU", cpus.len());
    assert_eq!(err.matches(&too_many).count(), usize::from(cpus.len() < 64 && failed.is_none()), "{err}");
    // the table names the CPUs the workers take
    let (out, _) = success_with_stderr(&[&args[..], &["--pin", "--no-progress"]].concat());
    if !cpus.is_empty() {
        assert!(out.contains("\npin      worker i on the i-th of these CPUs: "), "{out}");
    }
    let json = success_json(&[&args[..], &["--json", "--no-progress"]].concat());
    assert_eq!(json["pin"], Value::Null);
    for r in json["results"].as_array().unwrap() {
        assert_eq!((&r["pinned"], &r["cpus"]), (&Value::Bool(false), &Value::Null), "{r}");
    }
}
