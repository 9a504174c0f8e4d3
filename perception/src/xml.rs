//! A small XML element reader shared by the XML-based normalizers ([`crate::android`],
//! [`crate::wda`]): elements with their attributes, in pre-order, text content ignored.
//!
//! Reading stops at the end of the first top-level element, so trailing non-XML text (the
//! `UI hierchary dumped to: /dev/tty` line `uiautomator dump /dev/tty` prints) is tolerated.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// Malformed XML input.
#[derive(Debug, thiserror::Error)]
pub enum XmlError {
    /// The XML parser failed.
    #[error("XML parse error at byte {pos}: {message}")]
    Parse {
        /// Byte offset of the error in the input.
        pos: u64,
        /// Parser message.
        message: String,
    },
    /// The document had no element at all (a tool's error line, an empty answer); holds the
    /// start of what came back (first line, at most 80 chars).
    #[error("XML document has no root element; the answer starts with {start:?}")]
    Empty {
        /// First line of the input, cut to 80 chars.
        start: String,
    },
    /// Well-formed XML of another format (an Android dump given to the WebDriverAgent
    /// normalizer).
    #[error("not a {expected} document: its root element is <{root}>")]
    WrongFormat {
        /// The format the caller expected.
        expected: &'static str,
        /// The root element's tag.
        root: String,
    },
}

impl XmlError {
    /// [`XmlError::Empty`] for `input`.
    pub fn empty(input: &str) -> XmlError {
        XmlError::Empty {
            start: input
                .trim()
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(80)
                .collect(),
        }
    }
}

/// One element: tag name, attributes in document order, tree links.
#[derive(Debug, Clone, PartialEq)]
pub struct XmlElement {
    /// Tag name (local name, no namespace prefix handling).
    pub tag: String,
    /// `(name, unescaped value)` pairs.
    pub attrs: Vec<(String, String)>,
    /// Parent index in the element list.
    pub parent: Option<usize>,
    /// Nesting depth (root = 0).
    pub depth: usize,
}

impl XmlElement {
    /// Attribute value by name.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn element(e: &BytesStart<'_>, parent: Option<usize>, depth: usize) -> XmlElement {
    let tag = String::from_utf8_lossy(e.name().as_ref()).into_owned();
    let attrs = e
        .attributes()
        .with_checks(false)
        .filter_map(|a| a.ok())
        .map(|a| {
            let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            // Unknown entities (`&nbsp;`) fail to unescape: keep the raw text then.
            let value = match a.unescape_value() {
                Ok(v) => v.into_owned(),
                Err(_) => String::from_utf8_lossy(&a.value).into_owned(),
            };
            (key, value)
        })
        .collect();
    XmlElement {
        tag,
        attrs,
        parent,
        depth,
    }
}

/// Parses `src` into its elements in pre-order (`[0]` is the root element).
pub fn parse(src: &str) -> Result<Vec<XmlElement>, XmlError> {
    let mut reader = Reader::from_str(src);
    let mut out: Vec<XmlElement> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    loop {
        let ev = reader.read_event().map_err(|e| XmlError::Parse {
            pos: reader.error_position(),
            message: e.to_string(),
        })?;
        match ev {
            Event::Start(e) => {
                let el = element(&e, stack.last().copied(), stack.len());
                stack.push(out.len());
                out.push(el);
            }
            Event::Empty(e) => {
                out.push(element(&e, stack.last().copied(), stack.len()));
                if stack.is_empty() {
                    break;
                }
            }
            Event::End(_) => {
                stack.pop();
                if stack.is_empty() {
                    break;
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if out.is_empty() {
        return Err(XmlError::empty(src));
    }
    Ok(out)
}

/// Reads an XML boolean attribute: `"true"`/`"false"` (also `1`/`0`, any case) → yes/no,
/// anything else or absent → unknown.
pub fn tri_attr(el: &XmlElement, name: &str) -> crate::tree::Tri {
    match el.attr(name).map(str::trim) {
        Some(v) if v.eq_ignore_ascii_case("true") || v == "1" => crate::tree::Tri::Yes,
        Some(v) if v.eq_ignore_ascii_case("false") || v == "0" => crate::tree::Tri::No,
        _ => crate::tree::Tri::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nested_elements_and_stops_after_root() {
        let els = parse(
            "<?xml version='1.0'?><a x=\"1 &amp; 2\"><b/><c y='&nbsp;'><d/></c></a>\nUI hierchary dumped to: /dev/tty\n",
        )
        .unwrap();
        let tags: Vec<_> = els
            .iter()
            .map(|e| (e.tag.as_str(), e.parent, e.depth))
            .collect();
        assert_eq!(
            tags,
            vec![
                ("a", None, 0),
                ("b", Some(0), 1),
                ("c", Some(0), 1),
                ("d", Some(2), 2)
            ]
        );
        assert_eq!(els[0].attr("x"), Some("1 & 2"));
        assert_eq!(els[2].attr("y"), Some("&nbsp;"));
        assert!(matches!(parse("  "), Err(XmlError::Empty { .. })));
        let e = parse("ERROR: could not get idle state.\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "XML document has no root element; the answer starts with \"ERROR: could not get idle state.\""
        );
        assert!(parse("<a><b></a>").is_err());
    }
}
