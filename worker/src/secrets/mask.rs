//! Blanks boxes in a PNG screenshot before it is uploaded: password fields (and any field
//! showing a secret value) are filled with a solid colour, so a screenshot never echoes them.

use argus_perception::{Observation, Rect};

use super::Secrets;

/// Fill colour of a masked box (RGBA).
pub const MASK_RGBA: [u8; 4] = [40, 40, 40, 255];

/// Boxes (device px) to blank in a screenshot of `obs`: password fields, and elements whose
/// name or value shows a known secret value.
pub fn boxes(obs: &Observation, secrets: &Secrets) -> Vec<Rect> {
    obs.elements
        .iter()
        .filter(|e| {
            e.password.is_yes()
                || secrets.leaks(&e.name)
                || e.value.as_deref().is_some_and(|v| secrets.leaks(v))
        })
        .map(|e| e.bbox_px)
        .collect()
}

/// Returns `png` with every box filled with [`MASK_RGBA`]; the image unchanged when there
/// is nothing to mask. Errors when the PNG cannot be decoded (the caller then uploads
/// nothing rather than an unmasked image).
pub fn mask_png(png_bytes: Vec<u8>, rects: &[Rect]) -> Result<Vec<u8>, String> {
    if rects.is_empty() {
        return Ok(png_bytes);
    }
    let mut dec = png::Decoder::new(std::io::Cursor::new(&png_bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|e| e.to_string())?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| "screenshot too large to decode".to_string())?;
    let mut buf = vec![0u8; size];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let (w, h) = (info.width as usize, info.height as usize);
    let channels = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Grayscale => 1,
        png::ColorType::Indexed => return Err("indexed PNG after expansion".into()),
    };
    let stride = info.line_size;
    for r in rects {
        let x0 = r.x.floor().max(0.0) as usize;
        let y0 = r.y.floor().max(0.0) as usize;
        let x1 = (r.right().ceil().max(0.0) as usize).min(w);
        let y1 = (r.bottom().ceil().max(0.0) as usize).min(h);
        for y in y0..y1 {
            for x in x0..x1 {
                let p = y * stride + x * channels;
                let px = &mut buf[p..p + channels];
                match channels {
                    4 => px.copy_from_slice(&MASK_RGBA),
                    3 => px.copy_from_slice(&MASK_RGBA[..3]),
                    2 => px.copy_from_slice(&[MASK_RGBA[0], 255]),
                    _ => px[0] = MASK_RGBA[0],
                }
            }
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, info.width, info.height);
        enc.set_color(info.color_type);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().map_err(|e| e.to_string())?;
        wr.write_image_data(&buf[..stride * h])
            .map_err(|e| e.to_string())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_the_box() {
        let (w, h) = (8u32, 6u32);
        let mut src = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut src, w, h);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            let mut wr = enc.write_header().unwrap();
            wr.write_image_data(&vec![255u8; (w * h * 3) as usize])
                .unwrap();
        }
        let out = mask_png(src, &[Rect::new(2.0, 1.0, 3.0, 2.0)]).unwrap();
        let mut r = png::Decoder::new(std::io::Cursor::new(&out))
            .read_info()
            .unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        r.next_frame(&mut buf).unwrap();
        let px = |x: usize, y: usize| buf[(y * w as usize + x) * 3];
        assert_eq!(px(2, 1), MASK_RGBA[0]);
        assert_eq!(px(4, 2), MASK_RGBA[0]);
        assert_eq!(px(5, 2), 255);
        assert_eq!(px(2, 3), 255);
    }
}
