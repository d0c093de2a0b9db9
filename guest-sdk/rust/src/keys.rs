//! Template keys. The pods of a gang are copies of one template, so a
//! policy that computes something per scheduling constraint (node affinity,
//! tolerations, pod rules) computes it once per group of tasks whose
//! constraints encode to the same key. These functions append a
//! constraint's encoding to a key: equal encodings mean equal constraints.
//! They write what the Go SDK's writes, byte for byte.

use crate::view::{NodeSelectorTerm, Toleration};

/// Appends `n` as an unsigned LEB128 varint (Go's `binary.AppendUvarint`).
pub fn append_uvarint(key: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        key.push(n as u8 | 0x80);
        n >>= 7;
    }
    key.push(n as u8);
}

/// Appends `n` zig-zag encoded as a varint (Go's `binary.AppendVarint`).
pub fn append_varint(key: &mut Vec<u8>, n: i64) {
    append_uvarint(key, ((n << 1) ^ (n >> 63)) as u64);
}

/// Appends `s`, length-prefixed.
pub fn append_key_string(key: &mut Vec<u8>, s: &str) {
    append_uvarint(key, s.len() as u64);
    key.extend_from_slice(s.as_bytes());
}

impl NodeSelectorTerm {
    /// Appends the term: its validity and its requirements in order.
    pub fn append_key(&self, key: &mut Vec<u8>) {
        key.push(u8::from(self.invalid));
        for rs in [&self.match_expressions, &self.match_fields] {
            append_uvarint(key, rs.len() as u64);
            for r in rs {
                append_key_string(key, &r.key);
                append_key_string(key, &r.operator);
                append_uvarint(key, r.values.len() as u64);
                for v in &r.values {
                    append_key_string(key, v);
                }
            }
        }
    }
}

/// Appends the tolerations, in order.
pub fn append_tolerations_key(key: &mut Vec<u8>, tolerations: &[Toleration]) {
    append_uvarint(key, tolerations.len() as u64);
    for t in tolerations {
        for s in [&t.key, &t.operator, &t.value, &t.effect] {
            append_key_string(key, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::NodeSelectorRequirement;

    #[test]
    fn keys_tell_constraints_apart() {
        let zone = |values: &[&str]| NodeSelectorRequirement {
            key: "zone".into(),
            operator: "In".into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        };
        let term_in = NodeSelectorTerm { match_expressions: vec![zone(&["a", "b"])], ..NodeSelectorTerm::default() };
        let as_field = NodeSelectorTerm { match_fields: vec![zone(&["a", "b"])], ..NodeSelectorTerm::default() };
        let split = NodeSelectorTerm { match_expressions: vec![zone(&["ab"])], ..NodeSelectorTerm::default() };
        let invalid = NodeSelectorTerm { invalid: true, ..term_in.clone() };
        let key = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut k = Vec::new();
            f(&mut k);
            k
        };
        let keys = [
            key(&|k| term_in.append_key(k)),
            key(&|k| as_field.append_key(k)),
            key(&|k| split.append_key(k)),
            key(&|k| invalid.append_key(k)),
            key(&|k| append_tolerations_key(k, &[Toleration { key: "gpu".into(), operator: "Exists".into(), ..Toleration::default() }])),
            key(&|k| append_tolerations_key(k, &[])),
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(key(&|k| term_in.clone().append_key(k)), keys[0]);
        // Go's encoding: validity, then each list's length and entries.
        assert_eq!(keys[0], b"\x00\x01\x04zone\x02In\x02\x01a\x01b\x00");
    }

    #[test]
    fn varints_are_gos() {
        let enc = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut k = Vec::new();
            f(&mut k);
            k
        };
        assert_eq!(enc(&|k| append_uvarint(k, 300)), [0xac, 0x02]);
        assert_eq!(enc(&|k| append_varint(k, -1)), [0x01]);
        assert_eq!(enc(&|k| append_varint(k, 64)), [0x80, 0x01]);
        assert_eq!(enc(&|k| append_varint(k, i64::MIN)), [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    }
}
