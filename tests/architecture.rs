//! The crate's layering, checked: a module of `src/` may use only modules of a lower layer
//! (or its own). The layers are the ones the crate docs (`src/lib.rs`) draw.

use std::collections::BTreeMap;
use std::path::Path;

/// Layer of each top-level module: higher layers may use lower ones, never the reverse.
const LAYERS: [(&str, u8); 8] = [
    ("verify", 0),
    ("types", 1),
    ("cache", 1),
    ("client", 1),
    ("inputs", 2),
    ("judge", 2),
    ("report", 2),
    ("stages", 3),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_uses_a_module_above_it() {
    let layers: BTreeMap<&str, u8> = LAYERS.into_iter().collect();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut offences = Vec::new();
    let mut checked = 0;
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let Some(&own) = layers.get(top.as_str()) else {
            // lib.rs, main.rs and the binary's cli/ sit above every layer.
            continue;
        };
        checked += 1;
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("crate::") {
                rest = &rest[at + "crate::".len()..];
                let used: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                match layers.get(used.as_str()) {
                    Some(&layer) if used != top && layer >= own => offences.push(format!(
                        "src/{}:{}: `{top}` (layer {own}) uses `{used}` (layer {layer})",
                        rel.display(),
                        n + 1
                    )),
                    None => offences.push(format!(
                        "src/{}:{}: `crate::{used}` is not a known layer",
                        rel.display(),
                        n + 1
                    )),
                    _ => {}
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} files checked");
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}
#[test]
fn no_source_file_is_over_600_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 650).then(|| format!("{} has {n} lines", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}
