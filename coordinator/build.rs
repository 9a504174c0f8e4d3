//! Rebuilds the coordinator when a migration is added or changed: `sqlx::migrate!` embeds
//! `migrations/` at compile time but cannot tell cargo to watch the folder on stable Rust.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
