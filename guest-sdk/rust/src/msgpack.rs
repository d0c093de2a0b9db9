//! The few msgpack shapes the SDK reads and writes by hand: the request
//! envelope, events, handle lists and deltas (walked without building
//! objects), and every reply. Objects of the view are decoded with serde
//! (rmp-serde) from the exact bytes this reader delimits.
//!
//! Replies are written the way the Go SDK writes them (github.com/tinylib/msgp),
//! byte for byte, so that both SDKs produce the golden vectors in
//! testdata/abi: integers in their smallest *signed* form (msgp writes 200 as
//! int16 where rmp would write uint8), floats always as float64.

use std::fmt;

/// A malformed request.
#[derive(Debug)]
pub(crate) struct DecodeError(pub(crate) String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<rmp_serde::decode::Error> for DecodeError {
    fn from(e: rmp_serde::decode::Error) -> Self {
        DecodeError(e.to_string())
    }
}

pub(crate) type Result<T> = std::result::Result<T, DecodeError>;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(DecodeError(msg.into()))
}

/// Reads msgpack values off the front of a byte slice.
pub(crate) struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Self {
        Reader { b }
    }

    fn byte(&mut self) -> Result<u8> {
        match self.b.split_first() {
            Some((&c, rest)) => {
                self.b = rest;
                Ok(c)
            }
            None => err("unexpected end of the message"),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.b.len() < n {
            return err(format!("a value of {} bytes runs past the end of the message", n));
        }
        let (head, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(head)
    }

    fn be(&mut self, n: usize) -> Result<u64> {
        Ok(self.take(n)?.iter().fold(0u64, |acc, &c| acc << 8 | u64::from(c)))
    }

    fn peek(&self) -> Result<u8> {
        match self.b.first() {
            Some(&c) => Ok(c),
            None => err("unexpected end of the message"),
        }
    }

    /// Whether every byte has been read.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.b.is_empty()
    }

    /// Whether the next value is nil.
    pub(crate) fn is_nil(&self) -> bool {
        self.b.first() == Some(&0xc0)
    }

    pub(crate) fn nil(&mut self) -> Result<()> {
        match self.byte()? {
            0xc0 => Ok(()),
            m => err(format!("want nil, found marker {:#04x}", m)),
        }
    }

    pub(crate) fn map_len(&mut self) -> Result<u32> {
        match self.byte()? {
            m @ 0x80..=0x8f => Ok(u32::from(m & 0x0f)),
            0xde => Ok(self.be(2)? as u32),
            0xdf => Ok(self.be(4)? as u32),
            m => err(format!("want a map, found marker {:#04x}", m)),
        }
    }

    pub(crate) fn array_len(&mut self) -> Result<u32> {
        match self.byte()? {
            m @ 0x90..=0x9f => Ok(u32::from(m & 0x0f)),
            0xdc => Ok(self.be(2)? as u32),
            0xdd => Ok(self.be(4)? as u32),
            m => err(format!("want an array, found marker {:#04x}", m)),
        }
    }

    pub(crate) fn str(&mut self) -> Result<&'a str> {
        let n = match self.byte()? {
            m @ 0xa0..=0xbf => usize::from(m & 0x1f),
            0xd9 => self.be(1)? as usize,
            0xda => self.be(2)? as usize,
            0xdb => self.be(4)? as usize,
            m => return err(format!("want a string, found marker {:#04x}", m)),
        };
        std::str::from_utf8(self.take(n)?).or_else(|e| err(format!("invalid UTF-8: {}", e)))
    }

    pub(crate) fn bool(&mut self) -> Result<bool> {
        match self.byte()? {
            0xc2 => Ok(false),
            0xc3 => Ok(true),
            m => err(format!("want a bool, found marker {:#04x}", m)),
        }
    }

    /// Any msgpack integer, as i64.
    pub(crate) fn int(&mut self) -> Result<i64> {
        let m = self.byte()?;
        Ok(match m {
            0x00..=0x7f => i64::from(m),
            0xe0..=0xff => i64::from(m as i8),
            0xcc => self.be(1)? as i64,
            0xcd => self.be(2)? as i64,
            0xce => self.be(4)? as i64,
            0xcf => {
                let v = self.be(8)?;
                if v > i64::MAX as u64 {
                    return err(format!("integer {} overflows", v));
                }
                v as i64
            }
            0xd0 => i64::from(self.be(1)? as u8 as i8),
            0xd1 => i64::from(self.be(2)? as u16 as i16),
            0xd2 => i64::from(self.be(4)? as u32 as i32),
            0xd3 => self.be(8)? as i64,
            m => return err(format!("want an integer, found marker {:#04x}", m)),
        })
    }

    pub(crate) fn i32(&mut self) -> Result<i32> {
        let v = self.int()?;
        i32::try_from(v).or_else(|_| err(format!("integer {} overflows int32", v)))
    }

    /// A float64 or float32 (or an integer, read as a float).
    pub(crate) fn f64(&mut self) -> Result<f64> {
        match self.peek()? {
            0xcb => {
                self.byte()?;
                Ok(f64::from_bits(self.be(8)?))
            }
            0xca => {
                self.byte()?;
                Ok(f64::from(f32::from_bits(self.be(4)? as u32)))
            }
            _ => Ok(self.int()? as f64),
        }
    }

    /// Skips one value, whatever it is.
    pub(crate) fn skip(&mut self) -> Result<()> {
        let mut pending: u64 = 1;
        while pending > 0 {
            pending -= 1;
            let m = self.byte()?;
            let (data, children) = match m {
                0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (0, 0),
                0x80..=0x8f => (0, 2 * u64::from(m & 0x0f)),
                0x90..=0x9f => (0, u64::from(m & 0x0f)),
                0xa0..=0xbf => (usize::from(m & 0x1f), 0),
                0xcc | 0xd0 => (1, 0),
                0xcd | 0xd1 => (2, 0),
                0xce | 0xd2 | 0xca => (4, 0),
                0xcf | 0xd3 | 0xcb => (8, 0),
                0xc4 | 0xd9 => (self.be(1)? as usize, 0),
                0xc5 | 0xda => (self.be(2)? as usize, 0),
                0xc6 | 0xdb => (self.be(4)? as usize, 0),
                0xdc => (0, self.be(2)?),
                0xdd => (0, self.be(4)?),
                0xde => (0, 2 * self.be(2)?),
                0xdf => (0, 2 * self.be(4)?),
                0xd4 => (2, 0),
                0xd5 => (3, 0),
                0xd6 => (5, 0),
                0xd7 => (9, 0),
                0xd8 => (17, 0),
                0xc7 => (self.be(1)? as usize + 1, 0),
                0xc8 => (self.be(2)? as usize + 1, 0),
                0xc9 => (self.be(4)? as usize + 1, 0),
                0xc1 => return err("marker 0xc1 is never used"),
            };
            self.take(data)?;
            pending += children;
        }
        Ok(())
    }

    /// The bytes of the next value, which the reader steps over.
    pub(crate) fn raw(&mut self) -> Result<&'a [u8]> {
        let start = self.b;
        self.skip()?;
        Ok(&start[..start.len() - self.b.len()])
    }

    /// Decodes the next value with serde.
    pub(crate) fn decode<T: serde::de::DeserializeOwned>(&mut self) -> Result<T> {
        Ok(rmp_serde::from_slice(self.raw()?)?)
    }
}

/// Appends msgpack values to a buffer, as github.com/tinylib/msgp does.
pub(crate) struct Writer<'a>(pub(crate) &'a mut Vec<u8>);

impl Writer<'_> {
    fn header(&mut self, n: u32, fix: u8, m16: u8, m32: u8, fix_max: u32) {
        if n <= fix_max {
            self.0.push(fix | n as u8);
        } else if n <= u32::from(u16::MAX) {
            self.0.push(m16);
            self.0.extend_from_slice(&(n as u16).to_be_bytes());
        } else {
            self.0.push(m32);
            self.0.extend_from_slice(&n.to_be_bytes());
        }
    }

    pub(crate) fn array(&mut self, n: usize) {
        self.header(n as u32, 0x90, 0xdc, 0xdd, 15);
    }

    pub(crate) fn map(&mut self, n: usize) {
        self.header(n as u32, 0x80, 0xde, 0xdf, 15);
    }

    pub(crate) fn nil(&mut self) {
        self.0.push(0xc0);
    }

    pub(crate) fn bool(&mut self, v: bool) {
        self.0.push(if v { 0xc3 } else { 0xc2 });
    }

    /// The smallest signed form: fixint, int8/16/32/64 (never uint).
    pub(crate) fn int(&mut self, v: i64) {
        let b = &mut *self.0;
        if v >= 0 {
            if v <= i64::from(i8::MAX) {
                b.push(v as u8);
            } else if v <= i64::from(i16::MAX) {
                b.push(0xd1);
                b.extend_from_slice(&(v as i16).to_be_bytes());
            } else if v <= i64::from(i32::MAX) {
                b.push(0xd2);
                b.extend_from_slice(&(v as i32).to_be_bytes());
            } else {
                b.push(0xd3);
                b.extend_from_slice(&v.to_be_bytes());
            }
        } else if v >= -32 {
            b.push(v as i8 as u8);
        } else if v >= i64::from(i8::MIN) {
            b.push(0xd0);
            b.push(v as i8 as u8);
        } else if v >= i64::from(i16::MIN) {
            b.push(0xd1);
            b.extend_from_slice(&(v as i16).to_be_bytes());
        } else if v >= i64::from(i32::MIN) {
            b.push(0xd2);
            b.extend_from_slice(&(v as i32).to_be_bytes());
        } else {
            b.push(0xd3);
            b.extend_from_slice(&v.to_be_bytes());
        }
    }

    pub(crate) fn f64(&mut self, v: f64) {
        self.0.push(0xcb);
        self.0.extend_from_slice(&v.to_bits().to_be_bytes());
    }

    pub(crate) fn str(&mut self, s: &str) {
        let n = s.len();
        if n <= 31 {
            self.0.push(0xa0 | n as u8);
        } else if n <= usize::from(u8::MAX) {
            self.0.push(0xd9);
            self.0.push(n as u8);
        } else if n <= usize::from(u16::MAX) {
            self.0.push(0xda);
            self.0.extend_from_slice(&(n as u16).to_be_bytes());
        } else {
            self.0.push(0xdb);
            self.0.extend_from_slice(&(n as u32).to_be_bytes());
        }
        self.0.extend_from_slice(s.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(f: impl FnOnce(&mut Writer<'_>)) -> Vec<u8> {
        let mut b = Vec::new();
        f(&mut Writer(&mut b));
        b
    }

    #[test]
    fn integers_take_msgp_smallest_signed_form() {
        for (v, want) in [
            (0i64, vec![0x00]),
            (127, vec![0x7f]),
            (128, vec![0xd1, 0x00, 0x80]),
            (200, vec![0xd1, 0x00, 0xc8]),
            (40000, vec![0xd2, 0x00, 0x00, 0x9c, 0x40]),
            (-1, vec![0xff]),
            (-32, vec![0xe0]),
            (-33, vec![0xd0, 0xdf]),
            (-200, vec![0xd1, 0xff, 0x38]),
            (1 << 40, vec![0xd3, 0, 0, 0x01, 0, 0, 0, 0, 0]),
        ] {
            assert_eq!(written(|w| w.int(v)), want, "{}", v);
            assert_eq!(Reader::new(&want).int().unwrap(), v);
        }
    }

    #[test]
    fn skip_steps_over_nested_values() {
        let mut b = Vec::new();
        let mut w = Writer(&mut b);
        w.map(2);
        w.str("a");
        w.array(3);
        w.f64(1.5);
        w.nil();
        w.str(&"x".repeat(300));
        w.str("b");
        w.bool(true);
        b.push(0x2a);
        let mut r = Reader::new(&b);
        assert_eq!(r.raw().unwrap().len(), b.len() - 1);
        assert_eq!(r.int().unwrap(), 42);
    }
}
