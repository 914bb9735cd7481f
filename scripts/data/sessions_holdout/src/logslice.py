"""logslice: a Rust CLI that prints the lines of a log between two times. The user (Sam)
writes English."""

from dsl import Commit, A, TH, U, Bash, Edit, Session, Todo, Write

CWD = "/home/sam/src/logslice"

R1 = Session("R1", "logslice", CWD, "main", "en", "2026-01-29 20:15", [
    U("Starting a new tool, logslice: a CLI that prints the lines of a log file between two times. I want "
      "`logslice app.log --since 2026-01-28T10:00:00Z --until 2026-01-28T11:00:00Z`, and relative times like `--since 2h`. Set up the argument parsing."),
    Bash("cargo init --name logslice && cargo add clap --features derive && cargo add humantime chrono",
         "    Creating binary (application) package\n      Adding clap to dependencies\n      Adding humantime to dependencies\n      Adding chrono to dependencies",
         seconds=10),
    Write(CWD + "/src/cli.rs",
          "use clap::Parser;\n\n#[derive(Parser, Debug)]\n#[command(version, about = \"Print the lines of a log between two times\")]\n"
          "pub struct Cli {\n    /// Log file; stdin when absent\n    pub file: Option<std::path::PathBuf>,\n    #[arg(long)]\n    pub since: Option<TimeArg>,\n"
          "    #[arg(long)]\n    pub until: Option<TimeArg>,\n}\n"),
    A("I used clap's derive API. `--since`/`--until` take either an RFC 3339 timestamp or a relative duration parsed by `humantime` (`2h`, `30m`, `1d`), "
      "meaning 'that long before now'. `--until` defaults to now. The file argument is optional; without it we read stdin, so it works in pipes."),
    Bash("cargo build",
         "error[E0277]: the trait bound `TimeArg: Clone` is not satisfied\n  --> src/cli.rs:10:14\n   |\n10 |     pub since: Option<TimeArg>,",
         error=True, seconds=25),
    A("clap needs `Clone` on value types; deriving it on `TimeArg`."),
    Edit(CWD + "/src/cli.rs", "pub enum TimeArg {", "#[derive(Clone, Debug)]\npub enum TimeArg {"),
    Bash("cargo test", "running 6 tests\n......\ntest result: ok. 6 passed; 0 failed; 0 ignored", seconds=20),
    U("should relative times be relative to now or to the last line in the file?"),
    A("Relative to now by default: that's what people expect from `--since 2h` (same as `journalctl --since`). But for an old file that's useless, "
      "so I added `--relative-to last-line` as an option, which anchors relative times at the last timestamp in the file. Default stays `now`."),
    Edit(CWD + "/src/cli.rs", "    pub until: Option<TimeArg>,\n}",
         "    pub until: Option<TimeArg>,\n    #[arg(long, value_enum, default_value = \"now\")]\n    pub relative_to: Anchor,\n}"),
    A("Done: clap derive CLI in `src/cli.rs` with `--since`, `--until`, `--relative-to now|last-line`, reading a file or stdin. Times are RFC 3339 "
      "or humantime durations. 6 unit tests on the time parser. Next step: the actual slicing."),
])

R2 = Session("R2", "logslice", CWD, "perf/mmap-search", "en", "2026-03-04 21:00", [
    U("logslice takes 38 seconds on a 4 GB log. That's way too slow. Profile it."),
    Bash("cargo build --release && time ./target/release/logslice /data/big.log --since 2026-02-20T10:00:00Z --until 2026-02-20T10:05:00Z > /dev/null",
         "real\t0m38.214s\nuser\t0m35.902s\nsys\t0m2.207s", seconds=70),
    Bash("cargo flamegraph --bin logslice -- /data/big.log --since 2026-02-20T10:00:00Z --until 2026-02-20T10:05:00Z > /dev/null",
         "writing flamegraph to \"flamegraph.svg\"", seconds=60),
    A("The flamegraph: ~70% of the time is `BufRead::lines` allocating a `String` per line plus parsing the timestamp of every line. "
      "We parse 31 million timestamps to print 40 thousand lines."),
    A("Log files are sorted by time, so we can memory-map the file with `memmap2` and binary-search for the first line ≥ `--since`: jump to the "
      "middle byte, scan forward to the next newline, parse that line's timestamp, recurse into one half. Then stream from there until `--until`. "
      "That parses about 30 timestamps instead of 31 million."),
    U("what about stdin and unsorted files?"),
    A("stdin can't be memory-mapped, so it falls back to the streaming path. For files that aren't sorted, I added `--unsorted` to force the "
      "linear scan. Multi-threaded writers often interleave lines a little, so after the binary search we back up 64 KiB before the found offset "
      "and scan forward from there; that tolerates small local disorder without `--unsorted`."),
    Bash("cargo add memmap2", "      Adding memmap2 to dependencies", seconds=3),
    Write(CWD + "/src/search.rs",
          "/// First byte offset whose line has a timestamp >= `since` (the file is sorted by time).\n"
          "pub fn lower_bound(map: &[u8], since: DateTime<FixedOffset>) -> usize {\n    let (mut lo, mut hi) = (0, map.len());\n"
          "    while lo < hi {\n        let mid = next_line_start(map, lo + (hi - lo) / 2);\n        // ...\n    }\n"
          "    lo.saturating_sub(BACKUP_BYTES)\n}\n\nconst BACKUP_BYTES: usize = 64 * 1024;\n"),
    Bash("cargo test && cargo build --release && time ./target/release/logslice /data/big.log --since 2026-02-20T10:00:00Z --until 2026-02-20T10:05:00Z > /dev/null",
         "test result: ok. 14 passed; 0 failed\nreal\t0m1.187s\nuser\t0m0.341s\nsys\t0m0.812s", seconds=90),
    A("4 GB file: 38.2 s → 1.19 s. memmap2 + binary search on timestamps; stdin and `--unsorted` keep the linear scan; we back up 64 KiB before "
      "the found offset to tolerate slight disorder. Output is identical to the old path on the 14 test fixtures."),
])

R3 = Session("R3", "logslice", CWD, "ci/release", "en", "2026-04-09 22:10", [
    U("Set up releases: a GitHub Actions workflow that builds binaries for linux x86_64 and aarch64 and macOS, and attaches them to a GitHub release when I push a tag."),
    Write(CWD + "/.github/workflows/release.yml",
          "name: release\non:\n  push:\n    tags: ['v*']\njobs:\n  build:\n    strategy:\n      matrix:\n        include:\n"
          "          - { target: x86_64-unknown-linux-musl, os: ubuntu-latest, cross: true }\n          - { target: aarch64-unknown-linux-musl, os: ubuntu-latest, cross: true }\n"
          "          - { target: x86_64-apple-darwin, os: macos-13 }\n          - { target: aarch64-apple-darwin, os: macos-14 }\n"),
    A("Matrix of 4 targets: x86_64 and aarch64 `unknown-linux-musl` (built with `cross`), and x86_64/aarch64 `apple-darwin`. musl so the Linux "
      "binaries are fully static and run on any distro. Triggered by tags matching `v*`; a final job creates the release and uploads the tarballs with checksums."),
    Bash("git tag v0.1.0-rc1 && git push origin v0.1.0-rc1 && sleep 240 && gh run view --log-failed | tail -6",
         "error: failed to run custom build command for `openssl-sys v0.9.103`\n  Could not find directory of OpenSSL installation, and this `-sys` crate cannot\n"
         "  proceed without this knowledge.\n  $TARGET = x86_64-unknown-linux-musl", error=True, seconds=260),
    A("The musl builds fail in `openssl-sys`. We only pull OpenSSL in through `reqwest` (used by `--url` to read remote logs), with its default "
      "`native-tls` feature. Switching reqwest to `default-features = false, features = [\"rustls-tls\"]` removes the OpenSSL dependency entirely, "
      "so nothing native has to be cross-compiled."),
    Edit(CWD + "/Cargo.toml", "reqwest = { version = \"0.12\", features = [\"blocking\"] }",
         "reqwest = { version = \"0.12\", default-features = false, features = [\"blocking\", \"rustls-tls\"] }"),
    Bash("cargo tree -i openssl-sys", "error: package ID specification `openssl-sys` did not match any packages", seconds=4),
    Bash("git commit -qam 'reqwest: rustls instead of native-tls' && git tag v0.1.0-rc2 && git push -q origin HEAD v0.1.0-rc2 && sleep 300 && gh run list -L1",
         "completed  success  reqwest: rustls instead of native-tls  release  v0.1.0-rc2  push  9m12s", seconds=320),
    A("The release workflow works (`v0.1.0-rc2`): 4 targets, static musl binaries on Linux. Fix: reqwest with `rustls-tls` instead of native-tls, "
      "so there's no OpenSSL.\n\nLesson: check `cargo tree -i openssl-sys` before adding a cross-compiled target."),
])

R4 = Session("R4", "logslice", CWD, "fix/offset-without-colon", "en", "2026-05-20 21:30", [
    U("Issue #42 from kenji: logslice rejects timestamps like 2026-05-19T08:00:00+0800. Can you fix it?"),
    Bash("printf '2026-05-19T08:00:00+0800 hello\\n' | cargo run -q -- --since 2026-05-19T07:00:00+08:00",
         "error: unparseable timestamp '2026-05-19T08:00:00+0800' on line 1", error=True, seconds=15),
    A("chrono's `parse_from_rfc3339` requires a colon in the offset (`+08:00`). `+0800` is the ISO 8601 basic offset form, and plenty of loggers "
      "(log4j's default pattern, many Java apps) write it."),
    A("Fix: try RFC 3339 first, then fall back to `DateTime::parse_from_str(s, \"%Y-%m-%dT%H:%M:%S%.f%z\")`, which accepts `+0800`. The fallback only "
      "runs when the fast path fails, so sorted-file search speed is unchanged."),
    Edit(CWD + "/src/time.rs", "    DateTime::parse_from_rfc3339(s).ok()",
         "    DateTime::parse_from_rfc3339(s)\n        .or_else(|_| DateTime::parse_from_str(s, \"%Y-%m-%dT%H:%M:%S%.f%z\"))\n        .ok()"),
    Bash("cargo test time::", "running 10 tests\n..........\ntest result: ok. 10 passed; 0 failed", seconds=20),
    Bash("gh issue comment 42 --body 'Fixed in main: offsets without a colon (+0800) are accepted now. Will be in the next release.'",
         "https://github.com/samj/logslice/issues/42#issuecomment-2871"),
    A("Fixed #42: offsets without a colon (`+0800`) are accepted via a `%z` fallback after RFC 3339. Added 4 tests (with and without fractional "
      "seconds, `+0800` and `-0530`). Replied to kenji on the issue."),
])

R5 = Session("R5", "logslice", CWD, "feat/json-output", "en", "2026-07-01 20:45", [
    U("Add `--format json` so people can pipe into jq. Each line becomes {ts, level, msg, raw}."),
    TH("Array vs NDJSON. Streaming matters for 4 GB inputs."),
    A("Shape question first: a JSON array, or newline-delimited JSON? I'd go with NDJSON (one object per line): it streams, so logslice can print "
      "while it reads a 4 GB file without holding results in memory, and `jq` reads it natively. A JSON array would need the whole result in "
      "memory or hand-written bracket and comma handling."),
    U("ndjson is fine"),
    Bash("cargo add serde --features derive && cargo add serde_json", "      Adding serde to dependencies\n      Adding serde_json to dependencies", seconds=5),
    Write(CWD + "/src/output.rs",
          "#[derive(Serialize)]\nstruct Record<'a> {\n    ts: String,\n    level: Option<&'a str>,\n    msg: &'a str,\n    raw: &'a str,\n}\n"),
    Bash("cargo test output::",
         "---- output::tests::line_without_level stdout ----\nassertion `left == right` failed\n  left: \"{\\\"ts\\\":\\\"2026-07-01T10:00:00Z\\\",\\\"msg\\\":\\\"started\\\"}\"\n"
         " right: \"{\\\"ts\\\":\\\"2026-07-01T10:00:00Z\\\",\\\"level\\\":null,\\\"msg\\\":\\\"started\\\",\\\"raw\\\":\\\"...\\\"}\"",
         error=True, seconds=15),
    A("For lines without a recognisable level I emit `\"level\": null` instead of leaving the key out, so every object has the same keys; that's "
      "easier for jq filters and for loading the output into DuckDB or pandas. Removing the `skip_serializing_if` I had added."),
    Edit(CWD + "/src/output.rs", "    #[serde(skip_serializing_if = \"Option::is_none\")]\n    level: Option<&'a str>,", "    level: Option<&'a str>,"),
    Bash("cargo test", "test result: ok. 23 passed; 0 failed", seconds=20),
    A("`--format json` emits NDJSON, one `{\"ts\", \"level\", \"msg\", \"raw\"}` object per line, `level` is null when unknown. `--format text` stays the default."),
])

R6 = Session("R6", "logslice", CWD, "ci/windows", "en", "2026-08-05 21:10", [
    U("I added windows-latest to the CI matrix and it's red. Tests pass on Linux and mac."),
    Bash("gh run view --log-failed | grep -A4 'panicked' | head -12",
         "thread 'slices_fixture' panicked at tests/cli.rs:31:5:\nassertion `left == right` failed\n  left: \"2026-01-01T00:00:00Z a\\r\\n2026-01-01T00:00:01Z b\\r\\n\"\n"
         " right: \"2026-01-01T00:00:00Z a\\n2026-01-01T00:00:01Z b\\n\"\nthread 'reads_relative_path' panicked at tests/cli.rs:58:9:\n"
         "No such file: tests/fixtures\\..\\fixtures/app.log", seconds=8),
    A("Two separate problems: (1) git on the Windows runner checks the fixtures out with CRLF line endings (`core.autocrlf` is on there by default), "
      "so our expected outputs don't match; (2) one test builds a path by gluing strings with a hard-coded `/`."),
    A("Fix (1) with `.gitattributes`: `tests/fixtures/** text eol=lf`, so fixtures are byte-identical on every OS. Fix (2) with `Path::join`. "
      "I'm deliberately not normalising line endings inside logslice: a log with CRLF should come out with CRLF."),
    Write(CWD + "/.gitattributes", "tests/fixtures/** text eol=lf\n"),
    Edit(CWD + "/tests/cli.rs", "    let path = format!(\"{}/../fixtures/app.log\", dir);", "    let path = Path::new(dir).join(\"..\").join(\"fixtures\").join(\"app.log\");"),
    Bash("git add --renormalize . && git commit -qm 'Windows: LF fixtures, Path::join' && git push -q && sleep 400 && gh run list -L1",
         "completed  success  Windows: LF fixtures, Path::join  ci  main  push  7m41s", seconds=420),
    A("Windows CI is green: `.gitattributes` forces LF on `tests/fixtures/**`, and the path is built with `Path::join`. logslice keeps the input's "
      "line endings (CRLF in, CRLF out); decided not to normalise."),
])

R7 = Session("R7", "logslice", CWD, "feat/follow", "en", "2026-09-16 22:00", [
    U("Implement `--follow`, like `tail -f`: keep printing new lines that fall inside the window."),
    A("I'll use the `notify` crate (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows) rather than polling: on a Modify event we "
      "read from the last offset to EOF and print the new lines."),
    Bash("cargo add notify", "      Adding notify to dependencies", seconds=3),
    Write(CWD + "/src/follow.rs",
          "pub fn follow(path: &Path, mut offset: u64, out: &mut impl Write) -> Result<()> {\n    let (tx, rx) = std::sync::mpsc::channel();\n"
          "    let mut watcher = notify::recommended_watcher(tx)?;\n    watcher.watch(path, RecursiveMode::NonRecursive)?;\n    // ...\n}\n"),
    Bash("cargo test follow::", "test result: ok. 3 passed; 0 failed", seconds=18),
    U("Tried it on our app logs. After logrotate runs at midnight it stops printing anything."),
    A("logrotate in its default `create` mode renames `app.log` to `app.log.1` and creates a new `app.log`. We were watching the file itself, i.e. the "
      "inode that's now `app.log.1`, so lines written to the new file never show up."),
    A("Fix: watch the parent directory instead. On a Create (or rename-to) event for our file name: drain the old file to EOF, then reopen by path "
      "and start at offset 0. For `copytruncate` rotation: if the file becomes smaller than our offset, seek back to 0."),
    Todo(("Watch the directory, reopen on Create", "in_progress"), ("Handle copytruncate (size < offset)", "pending"), ("Rotation test script", "pending")),
    Edit(CWD + "/src/follow.rs", "    watcher.watch(path, RecursiveMode::NonRecursive)?;",
         "    let dir = path.parent().unwrap_or(Path::new(\".\"));\n    watcher.watch(dir, RecursiveMode::NonRecursive)?;"),
    Bash("cargo build -q && bash tests/rotate.sh", "create mode: 2000/2000 lines seen\ncopytruncate mode: 2000/2000 lines seen", seconds=40),
    A("`--follow` done with `notify`. It survives logrotate's create mode (we watch the directory and reopen on Create) and copytruncate "
      "(size < offset → seek to 0). Tested with `tests/rotate.sh`, which rotates every 500 lines in both modes."),
])

R8 = Session("R8", "logslice", CWD, "release/1.0", "en", "2026-10-21 21:40", [
    U("Let's publish logslice to crates.io as 1.0.0."),
    Bash("cargo publish --dry-run", "   Packaging logslice v1.0.0\n   Verifying logslice v1.0.0\n   Uploading logslice v1.0.0\nwarning: aborting upload due to dry run",
         seconds=60),
    Bash("cargo publish",
         "error: failed to publish to registry at https://crates.io\n\nCaused by:\n  the remote server responded with an error (status 403 Forbidden): "
         "this crate exists but you don't seem to be an owner.", error=True, seconds=30),
    A("Someone already owns the name `logslice` on crates.io: an empty 0.0.1 placeholder published in 2019. Options: ask the crates.io team to "
      "transfer the name (it can take weeks and isn't guaranteed), or publish under a different package name and keep the binary name."),
    U("rename the package, keep the command as logslice"),
    A("Package name `logslice-cli` with `[[bin]] name = \"logslice\"`, so `cargo install logslice-cli` installs a binary called `logslice`. "
      "The GitHub repo and the release tarball names stay `logslice`."),
    Edit(CWD + "/Cargo.toml", "[package]\nname = \"logslice\"",
         "[package]\nname = \"logslice-cli\"\n\n[[bin]]\nname = \"logslice\"\npath = \"src/main.rs\""),
    Bash("cargo publish", "   Uploading logslice-cli v1.0.0\n   Uploaded logslice-cli v1.0.0 to registry `crates-io`", seconds=60),
    A("Published `logslice-cli` 1.0.0 on crates.io; the command is still `logslice` (`cargo install logslice-cli`). README updated with the "
      "install line. The `logslice` crate name belongs to an unrelated placeholder."),
])

# the closing commit of the sessions that ended with one
R1.steps += Commit('en', 'CLI arguments: --since/--until/--relative-to', R1.branch, 3)
R2.steps += Commit('en', 'Binary search on a memory-mapped file', R2.branch, 1)
R4.steps += Commit('en', 'Accept offsets without a colon (#42)', R4.branch, 0)
R5.steps += Commit('en', '--format json (NDJSON)', R5.branch, 3)
R7.steps += Commit('en', '--follow survives log rotation', R7.branch, 1)

SESSIONS = [R1, R2, R3, R4, R5, R6, R7, R8]
