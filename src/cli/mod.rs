//! Client-side subcommands: `submit`, `run`, `migrate`.

pub mod migrate;
pub mod run_local;
pub mod submit;

/// `--steps FILE|TEXT`: the file's contents when `s` names an existing file, else `s`.
pub fn read_steps(s: &str) -> anyhow::Result<String> {
    let p = std::path::Path::new(s);
    if !s.contains('\n') && p.is_file() {
        return std::fs::read_to_string(p)
            .map_err(|e| anyhow::anyhow!("cannot read steps file {s}: {e}"));
    }
    Ok(s.to_string())
}
