//! A real HTTP server for `https://` sources and install links: Python's `http.server`,
//! started by the test on 127.0.0.1 with a free port and a directory of its own, stopped by PID.
//! It serves `.zip` files as `application/zip` with their exact `Content-Length`.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::oci_support::{free_port, require};

pub struct StaticServer {
    child: Child,
    pub port: u16,
}

impl StaticServer {
    /// Serves `root` (which must exist).
    pub fn start(root: &Path) -> StaticServer {
        let python = require("python3", "python3");
        let port = free_port("127.0.0.1");
        let child = Command::new(python)
            .args([
                "-m",
                "http.server",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
            ])
            .arg("--directory")
            .arg(root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut server = StaticServer { child, port };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("python3 -m http.server exited ({status}) on 127.0.0.1:{port}");
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("python3 -m http.server did not listen on 127.0.0.1:{port} within 10 s");
    }

    /// `http://127.0.0.1:<port>/<path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
