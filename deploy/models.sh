#!/usr/bin/env bash
# Installs what the OCR pixel channel of argus-perception needs, from PyPI only:
#
#   $ARGUS_MODELS_DIR (default /var/lib/argus/models)
#     libonnxruntime.so.1.32.0          from the `onnxruntime==1.32.0` wheel (onnxruntime/capi/)
#     libonnxruntime.so                 symlink to it
#     ch_PP-OCRv4_det_infer.onnx        from `rapidocr-onnxruntime==1.4.4`
#     ch_PP-OCRv4_rec_infer.onnx          (rapidocr_onnxruntime/models/)
#     ch_ppocr_mobile_v2.0_cls_infer.onnx
#     ch_PP-OCRv4_det_infer.fused.onnx  det / rec with the backbone's affine + hard-swish chains
#     ch_PP-OCRv4_rec_infer.fused.onnx    folded exactly (deploy/fuse_ppocr.py, onnx + numpy
#                                       pinned in a throwaway venv): ~20-30% less CPU, same text
#
# and, unless ARGUS_NO_RAPIDOCR_VENV=1, a Python virtualenv with rapidocr-onnxruntime for the
# comparison in `perception-bench`:
#
#   $ARGUS_RAPIDOCR_VENV (default $ARGUS_MODELS_DIR/rapidocr-venv), python from $PYTHON
#   (default: `python3` on PATH, i.e. pyenv's 3.11 here; Debian's /usr/bin/python3 works too
#   if it has the venv module).
#
# Files are taken with `pip download --no-deps` + unzip, versions pinned; the sha256 of every
# extracted file is checked against the values below (a mismatch aborts before anything is
# moved into place). Idempotent: files already present with the right hash are left alone.
set -euo pipefail

MODELS_DIR="${ARGUS_MODELS_DIR:-/var/lib/argus/models}"
VENV="${ARGUS_RAPIDOCR_VENV:-$MODELS_DIR/rapidocr-venv}"
PYTHON="${PYTHON:-python3}"

ORT_VERSION=1.32.0
RAPIDOCR_VERSION=1.4.4
# The .so inside the wheel does not depend on the Python ABI; pin one wheel so the hash is stable.
ORT_WHEEL_PY=3.11
ORT_WHEEL_PLATFORM=manylinux_2_28_x86_64

declare -A SHA256=(
  ["libonnxruntime.so.$ORT_VERSION"]=6c1585d1bbf45b0712ea4a21b705c5fcb4ba04ff2e30f1fbf81a49faf658638f
  ["ch_PP-OCRv4_det_infer.onnx"]=d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9
  ["ch_PP-OCRv4_rec_infer.onnx"]=48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b
  ["ch_ppocr_mobile_v2.0_cls_infer.onnx"]=e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c
)

# Outputs of deploy/fuse_ppocr.py (deterministic for the pinned inputs and tools).
ONNX_VERSION=1.23.2
NUMPY_VERSION=2.4.6
declare -A FUSED_SHA256=(
  ["ch_PP-OCRv4_det_infer.fused.onnx"]=79a538cd72da9e326bc9e1375d715b9a38619b800b27c4934874f83c45dae359
  ["ch_PP-OCRv4_rec_infer.fused.onnx"]=007cec61f21e16ce0f53b69a4bb4ea912141f58392b1b85743f443e21140a448
)

log() { printf 'models.sh: %s\n' "$*" >&2; }

have_ok() { # name -> 0 when $MODELS_DIR/name exists with the recorded hash
  local f="$MODELS_DIR/$1"
  [[ -f "$f" ]] && [[ "$(sha256sum "$f" | cut -d' ' -f1)" == "${SHA256[$1]}" ]]
}

mkdir -p "$MODELS_DIR"
missing=0
for name in "${!SHA256[@]}"; do have_ok "$name" || missing=1; done

if [[ $missing == 1 ]]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  log "downloading onnxruntime==$ORT_VERSION and rapidocr-onnxruntime==$RAPIDOCR_VERSION wheels"
  "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: \
    --python-version "$ORT_WHEEL_PY" --platform "$ORT_WHEEL_PLATFORM" \
    -d "$tmp/wheels" "onnxruntime==$ORT_VERSION"
  "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: \
    -d "$tmp/wheels" "rapidocr-onnxruntime==$RAPIDOCR_VERSION"
  mkdir -p "$tmp/x" "$tmp/out"
  unzip -q -o "$tmp"/wheels/onnxruntime-"$ORT_VERSION"-*.whl "onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" -d "$tmp/x"
  unzip -q -o "$tmp"/wheels/rapidocr_onnxruntime-"$RAPIDOCR_VERSION"-*.whl 'rapidocr_onnxruntime/models/*.onnx' -d "$tmp/x"
  cp "$tmp/x/onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" "$tmp/out/"
  cp "$tmp"/x/rapidocr_onnxruntime/models/*.onnx "$tmp/out/"
  for name in "${!SHA256[@]}"; do
    f="$tmp/out/$name"
    [[ -f "$f" ]] || { log "missing from the wheels: $name"; exit 1; }
    got="$(sha256sum "$f" | cut -d' ' -f1)"
    if [[ "$got" != "${SHA256[$name]}" ]]; then
      log "sha256 mismatch for $name: got $got, want ${SHA256[$name]}"
      exit 1
    fi
  done
  for name in "${!SHA256[@]}"; do
    install -m 0644 "$tmp/out/$name" "$MODELS_DIR/$name.part"
    mv -f "$MODELS_DIR/$name.part" "$MODELS_DIR/$name"
  done
  log "installed into $MODELS_DIR"
else
  log "models and runtime already present in $MODELS_DIR (hashes ok)"
fi
ln -sfn "libonnxruntime.so.$ORT_VERSION" "$MODELS_DIR/libonnxruntime.so"

# Folded det / rec models (optional: argus-perception falls back to the originals without them).
fused_ok() { # name -> 0 when $MODELS_DIR/name exists with the recorded hash
  local f="$MODELS_DIR/$1"
  [[ -f "$f" ]] && [[ "$(sha256sum "$f" | cut -d' ' -f1)" == "${FUSED_SHA256[$1]}" ]]
}
if fused_ok ch_PP-OCRv4_det_infer.fused.onnx && fused_ok ch_PP-OCRv4_rec_infer.fused.onnx; then
  log "folded models already present (hashes ok)"
else
  ftmp="$(mktemp -d)"
  log "folding det/rec models (onnx==$ONNX_VERSION numpy==$NUMPY_VERSION in a throwaway venv)"
  if "$PYTHON" -m venv "$ftmp/venv" \
    && "$ftmp/venv/bin/python" -m pip install --quiet "onnx==$ONNX_VERSION" "numpy==$NUMPY_VERSION"; then
    for m in det rec; do
      name="ch_PP-OCRv4_${m}_infer.fused.onnx"
      if ! "$ftmp/venv/bin/python" "$(dirname "$0")/fuse_ppocr.py" \
        "$MODELS_DIR/ch_PP-OCRv4_${m}_infer.onnx" "$ftmp/$name" >&2; then
        log "warning: folding $m failed; OCR uses the unfolded model"
        continue
      fi
      got="$(sha256sum "$ftmp/$name" | cut -d' ' -f1)"
      if [[ "$got" != "${FUSED_SHA256[$name]}" ]]; then
        log "warning: $name has sha256 $got, want ${FUSED_SHA256[$name]}; not installed (OCR uses the unfolded model)"
        continue
      fi
      install -m 0644 "$ftmp/$name" "$MODELS_DIR/$name.part"
      mv -f "$MODELS_DIR/$name.part" "$MODELS_DIR/$name"
    done
  else
    log "warning: could not create the folding venv; OCR uses the unfolded models"
  fi
  rm -rf "$ftmp"
fi

if [[ "${ARGUS_NO_RAPIDOCR_VENV:-0}" != 1 ]]; then
  if [[ -x "$VENV/bin/python" ]] && "$VENV/bin/python" -c 'import rapidocr_onnxruntime' 2>/dev/null; then
    log "rapidocr venv already present: $VENV"
  else
    log "creating rapidocr venv at $VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet \
      "rapidocr-onnxruntime==$RAPIDOCR_VERSION" "onnxruntime==$ORT_VERSION"
  fi
fi
if [[ "${ARGUS_NO_RAPIDOCR_VENV:-0}" != 1 ]]; then
  log "done: ARGUS_MODELS_DIR=$MODELS_DIR ARGUS_RAPIDOCR_PYTHON=$VENV/bin/python"
else
  log "done: ARGUS_MODELS_DIR=$MODELS_DIR"
fi
