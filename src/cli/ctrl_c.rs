//! Ctrl-C (SIGINT) for the commands that call models (`generate`, and `grade`/`judge` with a
//! judge): presses are counted into a [`kgrade::client::Interrupt`] that the client and the
//! stages read, and each press says on stderr what it does. The first stops new requests and
//! lets those under way finish; the second cancels them; either way the command then ends
//! cleanly, says what was saved and exits with 130. A third press exits at once with 130, for
//! the case where ending cleanly itself hangs (a stuck disk): every answer and verdict counted
//! as saved was flushed before it counted, so even then nothing counted is lost.

use kgrade::client::Interrupt;
use std::io::IsTerminal;

/// The exit code of a run ended by Ctrl-C (128 + SIGINT, as shells report it).
pub const INTERRUPTED: u8 = 130;

/// Count Ctrl-C presses from now on into a new [`Interrupt`]; `stopping` is what the first
/// press tells the user. Until this is called, Ctrl-C ends the process as usual.
pub fn on_ctrl_c(stopping: &'static str) -> std::io::Result<Interrupt> {
    let interrupt = Interrupt::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    // Registered here, before returning, so that no press between now and the listening
    // thread's start falls through to the default (ending the process silently).
    let (mut presses, mut terms) = {
        let _inside = runtime.enter();
        (listener()?, terminations()?)
    };
    let counted = interrupt.clone();
    std::thread::Builder::new()
        .name("ctrl-c".into())
        .spawn(move || {
            runtime.block_on(async move {
                loop {
                    let term = async {
                        match &mut terms {
                            Some(t) => t.recv().await,
                            None => std::future::pending().await,
                        }
                    };
                    tokio::select! {
                        press = presses.recv() => {
                            if press.is_none() {
                                break;
                            }
                            counted.press();
                            match counted.presses() {
                                1 => say(stopping),
                                2 => say("cancelling the requests under way"),
                                _ => {
                                    say("interrupted again: exiting at once");
                                    std::process::exit(i32::from(INTERRUPTED));
                                }
                            }
                        }
                        // SIGTERM (`kill`, `timeout`, a batch scheduler's time limit) asks to
                        // end soon: as two presses, so what arrived is saved and the rest
                        // is left for a rerun (trial 42: it ended the process with no word).
                        term = term => {
                            if term.is_none() {
                                break;
                            }
                            if counted.presses() >= 2 {
                                say("terminated again: exiting at once");
                                std::process::exit(i32::from(INTERRUPTED));
                            }
                            while counted.presses() < 2 {
                                counted.press();
                            }
                            say("terminated (SIGTERM): no new requests are sent and those under way are cancelled; what arrived is saved");
                        }
                    }
                }
            });
        })?;
    Ok(interrupt)
}

#[cfg(unix)]
fn listener() -> std::io::Result<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
}

#[cfg(windows)]
fn listener() -> std::io::Result<tokio::signal::windows::CtrlC> {
    tokio::signal::windows::ctrl_c()
}

#[cfg(unix)]
fn terminations() -> std::io::Result<Option<tokio::signal::unix::Signal>> {
    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).map(Some)
}

#[cfg(windows)]
fn terminations() -> std::io::Result<Option<tokio::signal::windows::CtrlC>> {
    Ok(None)
}

/// One line on stderr. On a terminal the progress bar's line is cleared first, so the message
/// is not appended to the bar (which redraws itself below it).
fn say(text: &str) {
    if std::io::stderr().is_terminal() {
        say_inline!("\r\x1b[2K");
    }
    say!("kgrade: {text}");
}
