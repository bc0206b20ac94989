//! The `kgrade` command line: arguments in, library call, exit code out. Each command lives
//! in its own module under `src/cli/`; this file only dispatches and maps errors to exit
//! codes.
//!
//! Exit codes: 0 everything was processed; 1 (`extract`) some input lines could not be read
//! (they are reported and the rest processed); 2 the command could not run (bad arguments,
//! unreadable file, I/O error); 3 (`grade`, `report`, `compare`) the input data is bad: a
//! dataset row, a generation line or a verdict line names the file, line and field, or
//! `--strict` found join trouble (reports are still written when only generation lines were
//! bad), or nothing was graded; 4 (`grade --judge`, `judge`) answers remain unresolved after the judge and
//! `--allow-unresolved` was not given, or (`generate`) some answers failed after every
//! retry (a rerun asks only for those); 130 (`generate`, `grade --judge`, `judge`) Ctrl-C
//! ended the run early: what was saved is said on stderr, and the same command resumes it. A
//! closed output pipe (`kgrade grade … | head -1`) ends any command quietly: with 0, or with
//! the code the run itself ended with.

/// mimalloc, not glibc's malloc: verifying allocates small vectors per answer, and glibc's
/// malloc and free took 7% of `kgrade extract` on long prose.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A line to stderr. A closed stderr (`kgrade extract … 2>&1 | head`) loses the message but
/// never the run: `eprintln!` would panic (exit 101) and stop the output half written.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// [`say!`] without the line end.
macro_rules! say_inline {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::Cli::parse().run() {
        Ok(code) => code,
        Err(err) => {
            if cli::is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            say!("kgrade: {err:#}");
            if let Some(code) = cli::interrupted_exit(&err) {
                code
            } else if cli::is_bad_data(&err) {
                ExitCode::from(3)
            } else {
                ExitCode::from(2)
            }
        }
    }
}
