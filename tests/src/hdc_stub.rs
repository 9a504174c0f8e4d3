//! A stand-in `hdc` executable: a bash script that appends its argv (fields separated by
//! U+001F, one invocation per line) to a log and answers the commands the HarmonyOS driver
//! sends with real-format output: `list targets`, `hidumper -s RenderService -a screen`,
//! `param get …`, `uitest dumpLayout -p <file>` + `cat <file>` (a layout JSON fixture),
//! `snapshot_display -f <file>` + `file recv <remote> <local>` (a PNG). Anything else
//! (`uitest uiInput …`, `aa start …`) prints nothing and exits 0, like the real tools.

use std::path::{Path, PathBuf};

/// A written stand-in.
pub struct HdcStub {
    /// The executable.
    pub path: PathBuf,
    log: PathBuf,
}

impl HdcStub {
    /// Writes the stand-in into `dir` with `targets` connected, serving `layout` (JSON file)
    /// and `png` (PNG file).
    pub fn create(dir: &Path, targets: &[&str], layout: &Path, png: &Path) -> HdcStub {
        std::fs::create_dir_all(dir).expect("stub dir");
        let path = dir.join("hdc");
        let log = dir.join("hdc-argv.log");
        let targets = if targets.is_empty() {
            "[Empty]".to_string()
        } else {
            targets.join("\n")
        };
        let script = format!(
            r#"#!/bin/bash
(IFS=$'\x1f'; printf '%s\n' "$0"$'\x1f'"$*") >> '{log}'
if [[ $1 == list && $2 == targets ]]; then printf '%s\n' '{targets}'; exit 0; fi
if [[ $1 == -t ]]; then shift 2; fi
if [[ $1 == file && $2 == recv ]]; then
  cp '{png}' "$4" && echo "FileTransfer finish, Size:1024, File count = 1, time:12ms rate:85.33kB/s"; exit 0
fi
if [[ $1 == shell ]]; then
  case "$2" in
    "hidumper -s RenderService -a screen")
      printf '%s\n' "-- ScreenInfo" "screen[0]: id=0, powerstatus=POWER_STATUS_ON, backlight=51, screenType=EXTERNAL_TYPE, render size: 1260x2720, physical screen resolution: 1260x2720, isvirtual=false, skipFrameInterval_:1" "  supportedMode[0]: 1260x2720, refreshrate=120" "  activeMode: 1260x2720, refreshrate=120";;
    "param get const.product.model") echo "ALN-AL00";;
    "param get const.product.software.version") echo "ALN-AL00 5.0.0.102(SP8C00E73R4P17)";;
    "uitest dumpLayout -p "*) echo "DumpLayout saved to:${{2#uitest dumpLayout -p }}";;
    "cat /data/local/tmp/argus-layout.json") cat '{layout}';;
    "snapshot_display -f "*) echo "success: snapshot display 0, write to ${{2#snapshot_display -f }} as png, width 1260, height 2720";;
  esac
  exit 0
fi
echo "[Fail]unknown command $*" >&2; exit 1
"#,
            log = log.display(),
            png = png.display(),
            layout = layout.display(),
        );
        std::fs::write(&path, script).expect("write stub");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        HdcStub { path, log }
    }

    /// Every invocation's argv, `argv[0]` first.
    pub fn calls(&self) -> Vec<Vec<String>> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| l.split('\u{1f}').map(String::from).collect())
            .collect()
    }
}
