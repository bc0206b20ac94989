//! End-to-end `kgrade grade` throughput and peak memory on generated runs of 100,000 and
//! 1,000,000 answers (1,000 dataset items, many samples each), in one run, so that the two
//! peaks can be compared: memory must stay flat as the input grows.
//!
//! `cargo bench --bench grade [-- N_SMALL N_LARGE]` (defaults 100000 1000000). Each size runs
//! the release `kgrade` binary as a child process and reads its peak resident set size from
//! `wait4`.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const ITEMS: usize = 1_000;
const CIRCLED: [&str; 5] = ["①", "②", "③", "④", "⑤"];

fn write_dataset(path: &Path) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(w, "id,question,answer,domain,sub_domain,format,lang").unwrap();
    let domains = ["공공", "금융", "국방"];
    let subs = ["행정법", "재정", "은행", "증권", "안보", ""];
    for i in 0..ITEMS {
        writeln!(
            w,
            "q{i},\"문항 {i}: 다음 중 옳은 것은? ① 첫째 보기 ② 둘째 보기 ③ 셋째 보기 ④ 넷째 보기 ⑤ 다섯째 보기\",{},{},{},{},{}",
            CIRCLED[i % 5],
            domains[i % 3],
            subs[i % 6],
            if i % 7 == 0 { "md_table" } else { "text" },
            if i % 10 == 0 { "en" } else { "ko" },
        )
        .unwrap();
    }
}

fn write_generations(path: &Path, n: usize) -> u64 {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let mut line = String::new();
    for k in 0..n {
        let item = k % ITEMS;
        let pick = CIRCLED[(k / ITEMS + item) % 5];
        let response = match k % 8 {
            0 => pick.to_string(),
            1 => format!("정답은 {pick}번입니다."),
            2 => format!("<think>보기를 하나씩 검토한다. 2023년 기준 3억원이다.</think>\n\n**정답: {pick}**"),
            3 => format!("<|start|>assistant<|channel|>analysis<|message|>검토 중<|end|><|start|>assistant<|channel|>final<|message|>최종 답: {pick}<|return|>"),
            4 => format!("정답은 {pick} 또는 ⑤입니다."),
            5 => "<think>①과 ② 중에서".to_string(),
            6 => format!("처음엔 ②로 봤지만 다시 보니 {pick}가 맞다"),
            _ => format!("The answer is {pick}."),
        };
        line.clear();
        let _ = write!(
            line,
            "{}",
            serde_json::json!({"id": format!("q{item}"), "response": response})
        );
        line.push('\n');
        w.write_all(line.as_bytes()).unwrap();
    }
    w.flush().unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// Run the binary; return (seconds, peak RSS in KiB).
// The child is reaped by `wait4` (which also yields its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run(args: &[&std::ffi::OsStr]) -> (f64, i64) {
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_kgrade"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "kgrade failed: {status}"
    );
    (start.elapsed().as_secs_f64(), usage.ru_maxrss)
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (small, large) = match sizes.as_slice() {
        [a, b, ..] => (*a, *b),
        _ => (100_000, 1_000_000),
    };
    let dir = std::env::temp_dir().join(format!("kgrade-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dataset = dir.join("dataset.csv");
    write_dataset(&dataset);
    let mut peaks = Vec::new();
    for n in [small, large] {
        let gens = dir.join(format!("gens-{n}.jsonl"));
        let bytes = write_generations(&gens, n);
        let out = dir.join(format!("out-{n}"));
        let (secs, peak_kib) = run(&[
            "grade".as_ref(),
            "--dataset".as_ref(),
            dataset.as_os_str(),
            "--generations".as_ref(),
            gens.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        println!(
            "grade {n:>9} answers ({:.0} MB): {:.2} s, {:.0} answers/s, {:.1} MB/s, peak RSS {:.1} MiB",
            bytes as f64 / 1e6,
            secs,
            n as f64 / secs,
            bytes as f64 / secs / 1e6,
            peak_kib as f64 / 1024.0
        );
        peaks.push(peak_kib);
        std::fs::remove_file(&gens).ok();
    }
    println!(
        "peak memory at {large} answers / at {small} answers = {:.2}x",
        peaks[1] as f64 / peaks[0] as f64
    );
    std::fs::remove_dir_all(&dir).ok();
}
