//! A loopback stand-in for an ADB server with one attached phone, speaking the smart-socket
//! protocol the real server speaks: `<4 hex digits length><request>`, answered `OKAY` or
//! `FAIL<len><message>`; host services (`host:version`, `host:devices`, `host:features`,
//! `host:transport:<serial>`) and `shell` in both protocols (v1 `shell:<cmd>`: raw output
//! then close; v2 `shell,v2,…,raw:<cmd>`: `[id u8][len u32 le][data]` packets, id 1 stdout,
//! 3 exit code). Every shell command is recorded in order so tests can assert the exact
//! commands a driver sent.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Answers one shell command: `(stdout, exit code)`.
pub type Responder = Arc<dyn Fn(&str) -> (Vec<u8>, u8) + Send + Sync>;

/// A running peer.
pub struct AdbPeer {
    /// `127.0.0.1:<port>`.
    pub addr: std::net::SocketAddrV4,
    /// Shell commands received, in order.
    pub commands: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl AdbPeer {
    /// Starts a peer with `serials` attached (state `device`); `shell_v2` chooses the shell
    /// protocol it advertises in `host:features`.
    pub async fn start(serials: &[&str], shell_v2: bool, respond: Responder) -> AdbPeer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind adb peer");
        let addr = match listener.local_addr().expect("addr") {
            std::net::SocketAddr::V4(a) => a,
            other => panic!("not v4: {other}"),
        };
        let commands = Arc::new(Mutex::new(Vec::new()));
        let serials: Arc<Vec<String>> = Arc::new(serials.iter().map(|s| s.to_string()).collect());
        let rec = commands.clone();
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let (rec, serials, respond) = (rec.clone(), serials.clone(), respond.clone());
                tokio::spawn(async move {
                    let _ = serve(sock, &serials, shell_v2, &respond, &rec).await;
                });
            }
        });
        AdbPeer {
            addr,
            commands,
            task,
        }
    }

    /// The recorded shell commands.
    pub fn commands(&self) -> Vec<String> {
        self.commands.lock().map(|c| c.clone()).unwrap_or_default()
    }
}

impl Drop for AdbPeer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn okay(s: &mut TcpStream, body: Option<&[u8]>) -> std::io::Result<()> {
    s.write_all(b"OKAY").await?;
    if let Some(b) = body {
        s.write_all(format!("{:04x}", b.len()).as_bytes()).await?;
        s.write_all(b).await?;
    }
    Ok(())
}

async fn fail(s: &mut TcpStream, msg: &str) -> std::io::Result<()> {
    s.write_all(format!("FAIL{:04x}{msg}", msg.len()).as_bytes())
        .await
}

async fn serve(
    mut s: TcpStream,
    serials: &[String],
    shell_v2: bool,
    respond: &Responder,
    rec: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    loop {
        let mut len = [0u8; 4];
        if s.read_exact(&mut len).await.is_err() {
            return Ok(());
        }
        let n = usize::from_str_radix(std::str::from_utf8(&len).unwrap_or("0"), 16).unwrap_or(0);
        let mut req = vec![0u8; n];
        s.read_exact(&mut req).await?;
        let req = String::from_utf8_lossy(&req).into_owned();
        if req == "host:version" {
            okay(&mut s, Some(b"0029")).await?;
        } else if req == "host:devices" {
            let list: String = serials.iter().map(|x| format!("{x}\tdevice\n")).collect();
            okay(&mut s, Some(list.as_bytes())).await?;
        } else if req == "host:features" {
            let f: &[u8] = if shell_v2 {
                b"shell_v2,cmd,stat_v2"
            } else {
                b"stat_v2"
            };
            okay(&mut s, Some(f)).await?;
        } else if let Some(serial) = req.strip_prefix("host:transport:") {
            if serials.iter().any(|x| x == serial) {
                okay(&mut s, None).await?;
            } else {
                fail(&mut s, &format!("device '{serial}' not found")).await?;
                return Ok(());
            }
        } else if let Some(cmd) = req.strip_prefix("shell:") {
            let (out, _) = run(cmd, respond, rec);
            okay(&mut s, None).await?;
            s.write_all(&out).await?;
            return s.shutdown().await;
        } else if let Some(rest) = req.strip_prefix("shell,") {
            let cmd = rest.split_once("raw:").map(|(_, c)| c).unwrap_or(rest);
            let (out, code) = run(cmd, respond, rec);
            okay(&mut s, None).await?;
            for chunk in out.chunks(64 * 1024) {
                s.write_all(&[1]).await?;
                s.write_all(&(chunk.len() as u32).to_le_bytes()).await?;
                s.write_all(chunk).await?;
            }
            s.write_all(&[3, 1, 0, 0, 0, code]).await?;
            return s.shutdown().await;
        } else {
            fail(&mut s, &format!("unknown request {req}")).await?;
            return Ok(());
        }
    }
}

fn run(cmd: &str, respond: &Responder, rec: &Mutex<Vec<String>>) -> (Vec<u8>, u8) {
    if let Ok(mut r) = rec.lock() {
        r.push(cmd.to_string());
    }
    respond(cmd)
}

/// A solid-colour RGB PNG of `w`×`h` px (what `screencap -p` returns, format-wise).
pub fn solid_png(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().expect("png header");
        let data = vec![200u8; (w * h * 3) as usize];
        wr.write_image_data(&data).expect("png data");
    }
    out
}
