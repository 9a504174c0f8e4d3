//! Image → tensor preparation shared by detection, classification and recognition.
//!
//! PP-OCR models were trained on OpenCV images, so channels are fed in **BGR** order, values
//! scaled to 0..1 then normalized per channel `(v - mean) / std`, planar (CHW). Resizing is
//! bilinear with half-pixel centres like OpenCV's `INTER_LINEAR` (no antialiasing, as
//! `cv2.resize` does), so the tensors match RapidOCR's closely.

use image::RgbImage;

/// An axis-aligned pixel rectangle inside an image: `x`, `y`, `w`, `h` in px.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PxRect {
    /// Left edge, px.
    pub x: u32,
    /// Top edge, px.
    pub y: u32,
    /// Width, px.
    pub w: u32,
    /// Height, px.
    pub h: u32,
}

/// Per-channel normalization in BGR order: `(v / 255 - mean[c]) / std[c]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Norm {
    /// Means, BGR.
    pub mean: [f32; 3],
    /// Standard deviations, BGR.
    pub std: [f32; 3],
}

/// `(v/255 - 0.5) / 0.5`: what RapidOCR uses for detection and PaddleOCR for cls/rec.
pub const HALF: Norm = Norm {
    mean: [0.5; 3],
    std: [0.5; 3],
};

/// Sampling table for one axis: source index pairs and the weight of the second.
fn axis_table(src_len: u32, dst_len: u32) -> Vec<(usize, usize, f32)> {
    let scale = f64::from(src_len) / f64::from(dst_len.max(1));
    let last = src_len.saturating_sub(1) as usize;
    (0..dst_len)
        .map(|d| {
            let s = ((f64::from(d) + 0.5) * scale - 0.5).max(0.0);
            let i0 = s.floor() as usize;
            if i0 >= last {
                (last, last, 0.0)
            } else {
                (i0, i0 + 1, (s - i0 as f64) as f32)
            }
        })
        .collect()
}

/// Resizes the `roi` of `img` to `out_w`×`out_h` (bilinear) and writes it normalized, BGR,
/// planar into `dst`, whose planes are `dst_h`×`dst_w` (`dst_w ≥ out_w`, `dst_h ≥ out_h`;
/// `dst.len() == 3 * dst_h * dst_w`). Pixels of `dst` outside the resized image are left
/// as they are (callers zero-fill for padding, as PaddleOCR does).
pub fn resize_normalize_into(
    img: &RgbImage,
    roi: PxRect,
    (out_w, out_h): (u32, u32),
    norm: &Norm,
    dst: &mut [f32],
    (dst_w, dst_h): (usize, usize),
) {
    if roi.w == 0 || roi.h == 0 || out_w == 0 || out_h == 0 {
        return;
    }
    let plane = dst_w * dst_h;
    let xs = axis_table(roi.w, out_w);
    let ys = axis_table(roi.h, out_h);
    let (iw, raw) = (img.width() as usize, img.as_raw());
    // scale and offset per BGR channel: v * a[c] + b[c]
    let mut a = [0f32; 3];
    let mut b = [0f32; 3];
    for c in 0..3 {
        a[c] = 1.0 / (255.0 * norm.std[c]);
        b[c] = -norm.mean[c] / norm.std[c];
    }
    let (rx, ry) = (roi.x as usize, roi.y as usize);
    let mut row0 = vec![0f32; xs.len() * 3];
    let mut row1 = vec![0f32; xs.len() * 3];
    let sample_row = |sy: usize, out: &mut [f32]| {
        let base = (ry + sy) * iw * 3;
        for (k, &(x0, x1, fx)) in xs.iter().enumerate() {
            let p0 = base + (rx + x0) * 3;
            let p1 = base + (rx + x1) * 3;
            for c in 0..3 {
                let v0 = f32::from(raw[p0 + c]);
                let v1 = f32::from(raw[p1 + c]);
                out[k * 3 + c] = v0 + (v1 - v0) * fx;
            }
        }
    };
    let mut cached: (usize, usize) = (usize::MAX, usize::MAX);
    for (dy, &(y0, y1, fy)) in ys.iter().enumerate().take(dst_h) {
        if cached.0 != y0 {
            sample_row(y0, &mut row0);
        }
        if cached.1 != y1 {
            sample_row(y1, &mut row1);
        }
        cached = (y0, y1);
        for dx in 0..(out_w as usize).min(dst_w) {
            for c in 0..3 {
                let t = row0[dx * 3 + c];
                let v = t + (row1[dx * 3 + c] - t) * fy;
                // RGB source channel c goes to BGR plane 2 - c
                let bc = 2 - c;
                dst[bc * plane + dy * dst_w + dx] = v * a[bc] + b[bc];
            }
        }
    }
}

/// Copies `roi` out of `img`.
pub fn crop(img: &RgbImage, roi: PxRect) -> RgbImage {
    image::imageops::crop_imm(img, roi.x, roi.y, roi.w, roi.h).to_image()
}

/// Width ÷ height of a crop (height at least 1).
pub fn aspect(c: &RgbImage) -> f32 {
    c.width() as f32 / c.height().max(1) as f32
}

/// Packs the crops `batch` names into one NCHW tensor of `[batch.len(), 3, h, w]` floats:
/// each crop resized to height `h` keeping its aspect (its width capped at `w`), normalized
/// with [`HALF`], left-aligned and zero-padded on the right — the input PaddleOCR's text
/// recognizer and direction classifier take (RapidOCR 1.4.4 `resize_norm_img`).
pub fn pack_lines(crops: &[RgbImage], batch: &[usize], (w, h): (usize, usize)) -> Vec<f32> {
    let mut data = vec![0f32; batch.len() * 3 * h * w];
    for (k, &i) in batch.iter().enumerate() {
        let c = &crops[i];
        let rw = ((h as f32 * aspect(c)).ceil() as u32).clamp(1, w as u32);
        let roi = PxRect {
            x: 0,
            y: 0,
            w: c.width(),
            h: c.height(),
        };
        let dst = &mut data[k * 3 * h * w..(k + 1) * 3 * h * w];
        resize_normalize_into(c, roi, (rw, h as u32), &HALF, dst, (w, h));
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_resize_is_exact_and_bgr() {
        let mut img = RgbImage::new(4, 2);
        img.put_pixel(1, 0, image::Rgb([255, 0, 0]));
        let mut dst = vec![9.0f32; 3 * 2 * 5];
        let roi = PxRect {
            x: 0,
            y: 0,
            w: 4,
            h: 2,
        };
        resize_normalize_into(&img, roi, (4, 2), &HALF, &mut dst, (5, 2));
        // red lands in plane 2 (R of BGR) at (1, 0) as +1, elsewhere -1; padding column kept.
        assert_eq!(dst[2 * 10 + 1], 1.0);
        assert_eq!(dst[1], -1.0);
        assert_eq!(dst[4], 9.0);
    }

    #[test]
    fn downscale_halves_use_half_pixel_centres() {
        let mut img = RgbImage::new(4, 1);
        for x in 0..4 {
            img.put_pixel(x, 0, image::Rgb([(x * 60) as u8; 3]));
        }
        let mut dst = vec![0.0f32; 3 * 2];
        let roi = PxRect {
            x: 0,
            y: 0,
            w: 4,
            h: 1,
        };
        let id = Norm {
            mean: [0.0; 3],
            std: [1.0 / 255.0; 3],
        };
        resize_normalize_into(&img, roi, (2, 1), &id, &mut dst, (2, 1));
        // dst x=0 samples src 0.5 → (0+60)/2 = 30; x=1 samples 2.5 → 150
        assert!((dst[0] - 30.0).abs() < 1e-3 && (dst[1] - 150.0).abs() < 1e-3);
    }
}
