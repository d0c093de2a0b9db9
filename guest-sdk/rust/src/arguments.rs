//! A policy's arguments: the `arguments` of its tier entry in the scheduler
//! configuration, as the scheduler sends them with every session.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::msgpack::Writer;

/// One argument value, as it arrived from the configuration's YAML.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    /// An unsigned integer beyond `i64::MAX`.
    Uint(u64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    Array(Vec<Value>),
    Map(Vec<(Value, Value)>),
}

impl Value {
    /// The value as an integer: an integer, or a float without a fraction.
    pub fn as_int(&self) -> Option<i64> {
        match *self {
            Value::Int(n) => Some(n),
            Value::Uint(n) => Some(n as i64),
            Value::Float(f) if f == (f as i64) as f64 => Some(f as i64),
            _ => None,
        }
    }

    /// The value as a float: a float or an integer.
    pub fn as_float(&self) -> Option<f64> {
        match *self {
            Value::Int(n) => Some(n as f64),
            Value::Uint(n) => Some(n as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The value as a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value as a bool.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }
}

/// Prints the value as Go's `%v` does for nil, booleans, integers, strings,
/// arrays and maps, so that messages read the same from Go and Rust
/// policies; floats and byte strings print in Rust's own notation.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => f.write_str("<nil>"),
            Value::Bool(b) => write!(f, "{}", b),
            Value::Int(n) => write!(f, "{}", n),
            Value::Uint(n) => write!(f, "{}", n),
            Value::Float(x) => write!(f, "{}", x),
            Value::Str(s) => f.write_str(s),
            Value::Bytes(b) => write!(f, "{:?}", b),
            Value::Array(a) => {
                f.write_str("[")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{}", v)?;
                }
                f.write_str("]")
            }
            Value::Map(m) => {
                f.write_str("map[")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{}:{}", k, v)?;
                }
                f.write_str("]")
            }
        }
    }
}

macro_rules! value_from {
    ($($t:ty => $variant:ident as $as:ty),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Self {
                Value::$variant(v as $as)
            }
        }
    )*};
}

value_from!(bool => Bool as bool, i32 => Int as i64, i64 => Int as i64, u32 => Int as i64, f64 => Float as f64);

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Str(v.to_string())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Str(v)
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any msgpack value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Nil)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Nil)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Uint(v), Value::Int))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Bytes(v.to_vec()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some(kv) = map.next_entry()? {
            out.push(kv);
        }
        Ok(Value::Map(out))
    }
}

/// A policy's arguments by name. A name with a dot (`binpack.weight`) is one
/// key, as in Volcano's configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Arguments(BTreeMap<String, Value>);

impl Arguments {
    /// The raw value of an argument.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    // The readers take what the scheduler's own readers take, so that a
    // value the scheduler accepted when it loaded the configuration is one
    // the module accepts, and refuse the rest in the same words.

    /// An integer argument, or `default` when it is absent or nil: an
    /// integer, a whole float, or a string of one. A value of another type
    /// is an error naming the key.
    pub fn int(&self, key: &str, default: i64) -> Result<i64, ArgumentError> {
        self.typed(key, default, "an integer", |v| match v {
            Value::Uint(n) if *n > i64::MAX as u64 => None,
            Value::Float(f) if !(*f >= -9.223372036854775808e18 && *f < 9.223372036854775808e18) => None,
            Value::Str(s) => s.parse().ok(),
            _ => v.as_int(),
        })
    }

    /// A finite number argument (an integer, a float, or a string of one),
    /// or `default` when absent or nil.
    pub fn float(&self, key: &str, default: f64) -> Result<f64, ArgumentError> {
        let what = match self.get(key) {
            Some(Value::Float(_)) | Some(Value::Str(_)) => "a finite number",
            _ => "a number",
        };
        self.typed(key, default, what, |v| {
            match v {
                Value::Str(s) => s.parse::<f64>().ok(),
                _ => v.as_float(),
            }
            .filter(|f| f.is_finite())
        })
    }

    /// A boolean argument, or `default` when absent or nil: true or false,
    /// or a string YAML 1.1 reads as one (yes, no, on, off, y, n), as
    /// Volcano's configuration reader does.
    pub fn bool(&self, key: &str, default: bool) -> Result<bool, ArgumentError> {
        self.typed(key, default, "true or false", |v| match v {
            Value::Str(s) => match s.as_str() {
                "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => Some(true),
                "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => Some(false),
                _ => None,
            },
            _ => v.as_bool(),
        })
    }

    /// A string argument; `None` when absent or not a string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// Every argument, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    fn typed<T>(&self, key: &str, default: T, what: &'static str, get: impl Fn(&Value) -> Option<T>) -> Result<T, ArgumentError> {
        match self.get(key) {
            None | Some(Value::Nil) => Ok(default),
            Some(v) => get(v).ok_or_else(|| ArgumentError { key: key.to_string(), expected: what, got: v.clone() }),
        }
    }
}

impl<K: Into<String>, V: Into<Value>> FromIterator<(K, V)> for Arguments {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Arguments(iter.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Nil) => Ok(Arguments::default()),
            Some(Value::Map(entries)) => {
                let mut out = BTreeMap::new();
                for (k, v) in entries {
                    match k {
                        Value::Str(k) => {
                            out.insert(k, v);
                        }
                        other => return Err(de::Error::custom(format!("argument name {} is not a string", other))),
                    }
                }
                Ok(Arguments(out))
            }
            Some(other) => Err(de::Error::custom(format!("arguments are {}, not a map", other))),
        }
    }
}

/// One configuration argument a policy reads, declared in
/// [`Plugin::ARGUMENTS`](crate::Plugin::ARGUMENTS): the module's descriptor
/// carries its name, type and default, and `caldera plugin inspect` prints
/// them. The scheduler does not check a configuration against them.
///
/// Write each name and default once, for both the declaration and the
/// reading:
///
/// ```
/// use caldera::{Argument, Error, Plugin, Session};
///
/// const WEIGHT: &str = "tight.weight";
/// const WEIGHT_DEFAULT: i64 = 1;
///
/// #[derive(Default)]
/// struct Tight {
///     weight: i64,
/// }
///
/// impl Plugin for Tight {
///     const NAME: &'static str = "tight";
///     const ARGUMENTS: &'static [Argument] = &[Argument::int(WEIGHT, WEIGHT_DEFAULT)];
///
///     fn on_session_open(&mut self, s: &Session) -> Result<(), Error> {
///         self.weight = s.arguments().int(WEIGHT, WEIGHT_DEFAULT)?;
///         Ok(())
///     }
/// }
///
/// let a = Tight::ARGUMENTS[0];
/// assert_eq!((a.name(), a.type_name()), ("tight.weight", "int"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Argument {
    name: &'static str,
    default: Declared,
}

/// A declared argument's type and default.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Declared {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'static str),
}

impl Argument {
    /// A boolean argument ([`Arguments::bool`]) and its default.
    pub const fn bool(name: &'static str, default: bool) -> Argument {
        Argument { name, default: Declared::Bool(default) }
    }

    /// An integer argument ([`Arguments::int`]) and its default.
    pub const fn int(name: &'static str, default: i64) -> Argument {
        Argument { name, default: Declared::Int(default) }
    }

    /// A number argument ([`Arguments::float`]) and its default.
    pub const fn float(name: &'static str, default: f64) -> Argument {
        Argument { name, default: Declared::Float(default) }
    }

    /// A string argument ([`Arguments::str`]) and its default.
    pub const fn str(name: &'static str, default: &'static str) -> Argument {
        Argument { name, default: Declared::Str(default) }
    }

    /// The argument's name, as the configuration spells it.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// `bool`, `int`, `float` or `string`, as the descriptor says it.
    pub const fn type_name(&self) -> &'static str {
        match self.default {
            Declared::Bool(_) => "bool",
            Declared::Int(_) => "int",
            Declared::Float(_) => "float",
            Declared::Str(_) => "string",
        }
    }

    /// `{name, type, default}`, as the Go SDK writes it.
    pub(crate) fn encode(&self, w: &mut Writer<'_>) {
        w.map(3);
        w.str("name");
        w.str(self.name);
        w.str("type");
        w.str(self.type_name());
        w.str("default");
        match self.default {
            Declared::Bool(b) => w.bool(b),
            Declared::Int(n) => w.int(n),
            Declared::Float(x) => w.f64(x),
            Declared::Str(s) => w.str(s),
        }
    }
}

/// An argument of the wrong type. Its message names the key, the expected
/// type, and the value with its type named as Go names it, in the words of
/// the scheduler and the Go SDK:
/// `argument "binpack.weight": expected an integer, got string ten`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgumentError {
    pub key: String,
    pub expected: &'static str,
    pub got: Value,
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let go_type = match self.got {
            Value::Nil => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int64",
            Value::Uint(_) => "uint64",
            Value::Float(_) => "float64",
            Value::Str(_) => "string",
            Value::Bytes(_) => "[]uint8",
            Value::Array(_) => "[]interface {}",
            Value::Map(_) => "map[string]interface {}",
        };
        write!(f, "argument \"{}\": expected {}, got {} {}", self.key, self.expected, go_type, self.got)
    }
}

impl std::error::Error for ArgumentError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_reads_accept_what_go_accepts() {
        let a: Arguments = [("w", Value::Float(3.0)), ("f", Value::Float(2.5)), ("s", Value::from("ten"))].into_iter().collect();
        assert_eq!(a.int("w", 1), Ok(3));
        assert_eq!(a.int("missing", 7), Ok(7));
        assert_eq!(a.int("s", 1).unwrap_err().to_string(), "argument \"s\": expected an integer, got string ten");
        let b: Arguments = [("n", Value::from("12")), ("y", Value::from("yes")), ("x", Value::Float(f64::INFINITY)), ("nil", Value::Nil)].into_iter().collect();
        assert_eq!(b.int("n", 0), Ok(12));
        assert_eq!(b.bool("y", false), Ok(true));
        assert_eq!(b.int("nil", 5), Ok(5));
        assert_eq!(b.float("x", 0.0).unwrap_err().to_string(), "argument \"x\": expected a finite number, got float64 inf");
        assert_eq!(b.bool("n", false).unwrap_err().to_string(), "argument \"n\": expected true or false, got string 12");
        assert!(a.int("f", 1).is_err());
        assert_eq!(a.float("f", 0.0), Ok(2.5));
        assert_eq!(a.str("s"), Some("ten"));
        assert_eq!(a.str("w"), None);
    }
}
