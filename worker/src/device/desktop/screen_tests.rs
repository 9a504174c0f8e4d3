//! Pins that the two routes of `screen::Grabber` give the same RGB bytes: on a real Xvfb
//! painted with a known pattern, the MIT-SHM grab, a second one through the kept segment and
//! the core `GetImage` grab all equal the pattern; on an Xvfb started without MIT-SHM
//! (`-extension MIT-SHM`) the grabber falls back to core `GetImage` and reads the same; so
//! it does on a display reached over TCP (a remote display: no fd crosses, the attach fails).
//!
//! Skipped (with a message) when Xvfb is missing: `deploy/dev-up.sh` installs it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};

use super::screen::Grabber;

/// Odd sizes, so no row happens to be a multiple of anything.
const W: u16 = 643;
const H: u16 = 401;
/// Rows per `PutImage` (keeps each request well under the core protocol's 256 KiB).
const BAND_ROWS: u16 = 16;

/// An Xvfb of its own, killed on drop.
struct Xvfb {
    child: Child,
    display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `Xvfb -displayfd 1` at `W`×`H`×24 with `extra` arguments (`-nolisten tcp` unless
/// they say `-listen`); `None` (and a message) when Xvfb is not installed.
fn xvfb(extra: &[&str]) -> Option<Xvfb> {
    let tcp = if extra.contains(&"-listen") {
        &[][..]
    } else {
        &["-nolisten", "tcp"][..]
    };
    let child = Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", &format!("{W}x{H}x24")])
        .args(tcp)
        .arg("-noreset")
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            eprintln!("skipped: cannot start Xvfb ({e}); deploy/dev-up.sh installs it");
            return None;
        }
    };
    let mut line = String::new();
    let out = child.stdout.take().expect("Xvfb stdout");
    BufReader::new(out)
        .read_line(&mut line)
        .expect("Xvfb display number");
    assert!(
        !line.trim().is_empty(),
        "Xvfb exited before naming its display"
    );
    Some(Xvfb {
        child,
        display: format!(":{}", line.trim()),
    })
}

/// The test pattern's RGB at (`x`, `y`): every channel different, no two neighbours equal.
fn pattern(x: u32, y: u32) -> [u8; 3] {
    [
        (x ^ y) as u8,
        (x.wrapping_mul(3) + y) as u8,
        (x + y.wrapping_mul(5)) as u8,
    ]
}

/// The whole pattern as the RGB bytes a grab must return.
fn pattern_rgb() -> Vec<u8> {
    (0..u32::from(H))
        .flat_map(|y| (0..u32::from(W)).flat_map(move |x| pattern(x, y)))
        .collect()
}

/// Paints the pattern onto the root window of `display` with core `PutImage` (BGRX, the
/// server's LSB-first 32-bit ZPixmap), through a connection of its own.
fn paint(display: &str) {
    let (conn, n) = x11rb::connect(Some(display)).expect("connect");
    let screen = &conn.setup().roots[n];
    let (root, depth) = (screen.root, screen.root_depth);
    let gc = conn.generate_id().expect("gc id");
    conn.create_gc(gc, root, &Default::default())
        .expect("CreateGC");
    for y0 in (0..H).step_by(usize::from(BAND_ROWS)) {
        let rows = BAND_ROWS.min(H - y0);
        let mut data = Vec::with_capacity(usize::from(W) * usize::from(rows) * 4);
        for y in y0..y0 + rows {
            for x in 0..W {
                let [r, g, b] = pattern(u32::from(x), u32::from(y));
                data.extend_from_slice(&[b, g, r, 0]);
            }
        }
        let y = i16::try_from(y0).expect("row fits i16");
        conn.put_image(
            ImageFormat::Z_PIXMAP,
            root,
            gc,
            W,
            rows,
            0,
            y,
            0,
            depth,
            &data,
        )
        .expect("PutImage")
        .check()
        .expect("PutImage accepted");
    }
}

#[test]
fn shm_and_core_grabs_give_the_same_bytes() {
    let Some(x) = xvfb(&[]) else {
        return;
    };
    paint(&x.display);
    let want = pattern_rgb();
    let mut g = Grabber::connect(&x.display).expect("connect");
    assert!(g.uses_shm(), "Xvfb has MIT-SHM: the grabber should use it");
    let first = g.grab().expect("MIT-SHM grab");
    let seg = g.segment_id();
    let second = g.grab().expect("second MIT-SHM grab");
    assert!(g.uses_shm(), "the MIT-SHM grab fell back to core");
    assert_eq!(g.segment_id(), seg, "the segment is kept across grabs");
    let core = g.grab_core().expect("core grab");
    let fresh = Grabber::connect_core(&x.display)
        .expect("connect")
        .grab()
        .expect("core-only grabber");
    assert_eq!(first.dimensions(), (u32::from(W), u32::from(H)));
    assert_eq!(core.dimensions(), first.dimensions());
    assert!(
        first.as_raw() == &want[..],
        "MIT-SHM grab differs from the pattern"
    );
    assert!(second.as_raw() == &want[..], "second MIT-SHM grab differs");
    assert!(
        core.as_raw() == &want[..],
        "core grab differs from the pattern"
    );
    assert!(
        fresh.as_raw() == first.as_raw(),
        "core-only grabber differs"
    );
}

#[test]
fn a_server_without_mit_shm_grabs_through_core() {
    let Some(x) = xvfb(&["-extension", "MIT-SHM"]) else {
        return;
    };
    paint(&x.display);
    let mut g = Grabber::connect(&x.display).expect("connect");
    assert!(!g.uses_shm(), "this Xvfb was started without MIT-SHM");
    let img = g.grab().expect("core grab");
    assert!(img.as_raw() == &pattern_rgb()[..], "fallback grab differs");
    assert!(!g.uses_shm());
}

#[test]
fn a_display_over_tcp_grabs_through_core() {
    let Some(x) = xvfb(&["-listen", "tcp"]) else {
        return;
    };
    paint(&x.display);
    let tcp = format!("127.0.0.1{}", x.display);
    let mut g = Grabber::connect(&tcp).expect("connect over TCP");
    assert!(!g.uses_shm(), "no fd crosses TCP: the attach must fail");
    let img = g.grab().expect("core grab over TCP");
    assert!(img.as_raw() == &pattern_rgb()[..], "grab over TCP differs");
}
