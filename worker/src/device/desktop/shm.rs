//! One MIT-SHM segment shared with the X server, for grabbing the screen without sending
//! its pixels over the X socket: an anonymous `memfd` of the frame's size, mapped here
//! read-only and handed to the server with `ShmAttachFd` (MIT-SHM 1.2, fd passing over the
//! local socket: no SysV ids or permission bits, so it works when the apps run as a slot user
//! and Xvfb as root). `ShmGetImage` then has the server write the frame straight into the
//! shared pages; the reply says when it is done.
//!
//! Only a local display can take a segment: over TCP no fd crosses, and the attach fails
//! (the caller then grabs with core `GetImage`, see `screen`).

use std::ffi::CStr;
use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};

use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::rust_connection::RustConnection;

/// The memfd's name (shows in `/proc/<pid>/fd` of the worker and the X server).
const MEMFD_NAME: &CStr = c"argus-x-frame";
/// MIT-SHM version that has `ShmAttachFd` (the X.Org protocol's `shm.xml`: 1.2).
const ATTACH_FD_SINCE: (u16, u16) = (1, 2);

/// A segment attached to one X connection: `len` bytes mapped at `ptr`, known to the server
/// as `seg`. Detach it with [`Segment::detach`] on that connection before dropping it (the
/// server also frees it when the connection closes); dropping unmaps it here.
pub(super) struct Segment {
    seg: shm::Seg,
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is owned by this value alone (never aliased by another `Segment`);
// moving it to another thread moves that ownership.
unsafe impl Send for Segment {}
// SAFETY: through `&self` the mapping is only read (`bytes`), never written here.
unsafe impl Sync for Segment {}

impl Segment {
    /// A fresh `len`-byte segment attached to `conn`. Errors (as text for the fallback's log
    /// line): the server lacks MIT-SHM or fd passing (< 1.2), the memfd or mapping cannot be
    /// made, or the server refuses the attach (e.g. a remote display: no fd crosses TCP).
    pub(super) fn attach(conn: &RustConnection, len: usize) -> Result<Segment, String> {
        supports_attach_fd(conn)?;
        let file = memfd(len).map_err(|e| format!("memfd of {len} bytes: {e}"))?;
        let ptr = map(&file, len).map_err(|e| format!("mmap of {len} bytes: {e}"))?;
        // From here on `Segment`'s drop unmaps, whatever fails below.
        let mut segment = Segment { seg: 0, ptr, len };
        segment.seg = conn.generate_id().map_err(|e| format!("XID: {e}"))?;
        conn.shm_attach_fd(segment.seg, OwnedFd::from(file), false)
            .map_err(|e| format!("ShmAttachFd: {e}"))?
            .check()
            .map_err(|e| format!("ShmAttachFd: {e}"))?;
        Ok(segment)
    }

    /// The server's id of the segment (for `ShmGetImage`).
    pub(super) fn id(&self) -> shm::Seg {
        self.seg
    }

    /// Size in bytes.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The segment's bytes. Read them only after the reply of the request that wrote them
    /// (the server writes nothing else into it).
    pub(super) fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live `len`-byte mapping owned by `self` (unmapped only in drop);
        // the server writes into it only while a `ShmGetImage` is outstanding, and callers
        // read after its reply.
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) }
    }

    /// Tells the server to forget the segment (no round trip; errors ignored: a dead
    /// connection has already freed it).
    pub(super) fn detach(self, conn: &RustConnection) {
        let _ = conn.shm_detach(self.seg);
        let _ = conn.flush();
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `attach`; no slice of it outlives `self`.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}

/// Whether `conn`'s server has MIT-SHM with `ShmAttachFd`; the reason when not.
fn supports_attach_fd(conn: &RustConnection) -> Result<(), String> {
    let present = conn
        .extension_information(shm::X11_EXTENSION_NAME)
        .map_err(|e| format!("extension query: {e}"))?;
    if present.is_none() {
        return Err("the server lacks MIT-SHM".into());
    }
    let v = conn
        .shm_query_version()
        .map_err(|e| format!("ShmQueryVersion: {e}"))?
        .reply()
        .map_err(|e| format!("ShmQueryVersion: {e}"))?;
    if (v.major_version, v.minor_version) < ATTACH_FD_SINCE {
        return Err(format!(
            "MIT-SHM {}.{} has no ShmAttachFd",
            v.major_version, v.minor_version
        ));
    }
    Ok(())
}

/// An anonymous in-memory file of `len` bytes (close-on-exec).
fn memfd(len: usize) -> std::io::Result<File> {
    // SAFETY: `memfd_create` with a NUL-terminated name; a valid result is a fresh fd that
    // nothing else owns, so `File` may take it.
    let fd = unsafe { libc::memfd_create(MEMFD_NAME.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: see above: `fd` is open and owned by nobody else.
    let file = unsafe { File::from_raw_fd(fd) };
    file.set_len(len as u64)?;
    Ok(file)
}

/// Maps `len` bytes of `file` shared and read-only.
fn map(file: &File, len: usize) -> std::io::Result<*mut libc::c_void> {
    use std::os::fd::AsRawFd;
    // SAFETY: a fresh mapping of an fd we hold, `len` bytes (the file's size); the kernel
    // picks the address. The mapping outlives the fd, which may be closed afterwards.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    Ok(ptr)
}
