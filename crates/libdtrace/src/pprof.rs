//! pprof profiles of stack aggregations (the `pprof` option): when
//! tracing ends, every aggregation keyed by `stack()`, `ustack()` or
//! `jstack()` is written, gzipped, as one profile in the format of
//! `profile.proto` (github.com/google/pprof), which `go tool pprof` and
//! the continuous profilers (Pyroscope, Parca, Grafana) read.
//!
//! Each such aggregation is a sample type, named after it (`@` alone is
//! named after its function); each row is a sample whose locations are
//! its frames, innermost first (a kernel stack's below a user stack's
//! when a row has both), and whose value is the row's (a distribution's
//! count of values), divided by the `normalize()` factor; the row's other
//! keys are the sample's labels, named as the metrics endpoint names them
//! (`key1`..., or by `metriclabels`). Frames are functions as DTrace
//! prints them (`module`function`), in a mapping for each kernel module
//! and user object (its file and build ID), addresses being the kernel's
//! or the offsets in the object's file.

use std::collections::HashMap;
use std::io::{self, Write};

use dtrace_bpf::aggs::AggValue;
use prost::Message;

use crate::aggregate::{AggEntry, KeyValue};
use crate::usym::{UPlace, UserHow};

/// `profile.proto`'s messages (the fields a profile here fills).
mod proto {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Profile {
        #[prost(message, repeated, tag = "1")]
        pub sample_type: Vec<ValueType>,
        #[prost(message, repeated, tag = "2")]
        pub sample: Vec<Sample>,
        #[prost(message, repeated, tag = "3")]
        pub mapping: Vec<Mapping>,
        #[prost(message, repeated, tag = "4")]
        pub location: Vec<Location>,
        #[prost(message, repeated, tag = "5")]
        pub function: Vec<Function>,
        #[prost(string, repeated, tag = "6")]
        pub string_table: Vec<String>,
        #[prost(int64, tag = "9")]
        pub time_nanos: i64,
        #[prost(int64, tag = "10")]
        pub duration_nanos: i64,
        #[prost(int64, repeated, tag = "13")]
        pub comment: Vec<i64>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueType {
        #[prost(int64, tag = "1")]
        pub r#type: i64,
        #[prost(int64, tag = "2")]
        pub unit: i64,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Sample {
        #[prost(uint64, repeated, tag = "1")]
        pub location_id: Vec<u64>,
        #[prost(int64, repeated, tag = "2")]
        pub value: Vec<i64>,
        #[prost(message, repeated, tag = "3")]
        pub label: Vec<Label>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Label {
        #[prost(int64, tag = "1")]
        pub key: i64,
        #[prost(int64, tag = "2")]
        pub str: i64,
        #[prost(int64, tag = "3")]
        pub num: i64,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Mapping {
        #[prost(uint64, tag = "1")]
        pub id: u64,
        #[prost(uint64, tag = "2")]
        pub memory_start: u64,
        #[prost(uint64, tag = "3")]
        pub memory_limit: u64,
        #[prost(uint64, tag = "4")]
        pub file_offset: u64,
        #[prost(int64, tag = "5")]
        pub filename: i64,
        #[prost(int64, tag = "6")]
        pub build_id: i64,
        #[prost(bool, tag = "7")]
        pub has_functions: bool,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Location {
        #[prost(uint64, tag = "1")]
        pub id: u64,
        #[prost(uint64, tag = "2")]
        pub mapping_id: u64,
        #[prost(uint64, tag = "3")]
        pub address: u64,
        #[prost(message, repeated, tag = "4")]
        pub line: Vec<Line>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Line {
        #[prost(uint64, tag = "1")]
        pub function_id: u64,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Function {
        #[prost(uint64, tag = "1")]
        pub id: u64,
        #[prost(int64, tag = "2")]
        pub name: i64,
        #[prost(int64, tag = "3")]
        pub system_name: i64,
        #[prost(int64, tag = "4")]
        pub filename: i64,
    }
}

/// One stack aggregation to write: its sample type's name and unit, its
/// keys' label names, its rows and `normalize()` factor.
pub(crate) struct StackAgg<'a> {
    pub(crate) name: String,
    pub(crate) unit: &'static str,
    pub(crate) labels: Vec<String>,
    pub(crate) rows: &'a [AggEntry],
    pub(crate) normal: u64,
}

/// A frame as the profile keeps it: its mapping's file (and build ID),
/// its address there, and its function.
struct Frame {
    object: String,
    build_id: Option<String>,
    address: u64,
    function: String,
}

/// Builds a profile, interning strings, functions, mappings and
/// locations as they come.
#[derive(Default)]
struct Builder {
    p: proto::Profile,
    strings: HashMap<String, i64>,
    functions: HashMap<String, u64>,
    /// Mappings by file: their id and the addresses seen.
    mappings: HashMap<String, usize>,
    locations: HashMap<(u64, u64, u64), u64>,
}

impl Builder {
    fn new() -> Builder {
        let mut b = Builder::default();
        b.string("");
        b
    }

    fn string(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.strings.get(s) {
            return i;
        }
        let i = self.p.string_table.len() as i64;
        self.p.string_table.push(s.to_string());
        self.strings.insert(s.to_string(), i);
        i
    }

    fn location(&mut self, f: &Frame) -> u64 {
        let m = match self.mappings.get(&f.object) {
            Some(&m) => m,
            None => {
                let filename = self.string(&f.object);
                let build_id = f.build_id.as_deref().map_or(0, |b| self.string(b));
                self.p.mapping.push(proto::Mapping {
                    id: self.p.mapping.len() as u64 + 1,
                    memory_start: f.address,
                    memory_limit: f.address + 1,
                    file_offset: 0,
                    filename,
                    build_id,
                    has_functions: true,
                });
                self.mappings
                    .insert(f.object.clone(), self.p.mapping.len() - 1);
                self.p.mapping.len() - 1
            }
        };
        let map = &mut self.p.mapping[m];
        map.memory_start = map.memory_start.min(f.address);
        map.memory_limit = map.memory_limit.max(f.address.saturating_add(1));
        let mapping_id = map.id;
        let func = match self.functions.get(&f.function) {
            Some(&id) => id,
            None => {
                let name = self.string(&f.function);
                let filename = self.string(&f.object);
                let id = self.p.function.len() as u64 + 1;
                self.p.function.push(proto::Function {
                    id,
                    name,
                    system_name: name,
                    filename,
                });
                self.functions.insert(f.function.clone(), id);
                id
            }
        };
        *self
            .locations
            .entry((mapping_id, f.address, func))
            .or_insert_with(|| {
                let id = self.p.location.len() as u64 + 1;
                self.p.location.push(proto::Location {
                    id,
                    mapping_id,
                    address: f.address,
                    line: vec![proto::Line { function_id: func }],
                });
                id
            })
    }

    /// A mapping's addresses are the kernel's, or offsets in its file:
    /// the file's offset is then where the mapping starts.
    fn finish(mut self, user_objects: &[String]) -> proto::Profile {
        for m in &mut self.p.mapping {
            let name = &self.p.string_table[m.filename as usize];
            if user_objects.contains(name) {
                m.file_offset = m.memory_start;
            }
        }
        self.p
    }
}

/// A kernel stack's frames, innermost first.
fn kernel_frames(b: &[u8]) -> Vec<Frame> {
    crate::ksym::frames(b)
        .map(|a| {
            let (object, function) = match crate::ksym::lookup(a) {
                Some((m, f, _)) => (m.to_string(), format!("{}`{}", m, f)),
                None => ("[unknown]".to_string(), format!("0x{:x}", a)),
            };
            Frame {
                object,
                build_id: None,
                address: a,
                function,
            }
        })
        .collect()
}

/// A user stack's frames, innermost first, and the objects they are in
/// (by path).
fn user_frames(b: &[u8], objects: &mut Vec<String>) -> Vec<Frame> {
    crate::usym::ustack_places(b)
        .into_iter()
        .map(|(place, _)| {
            let function = place.text(UserHow::Sym);
            match place {
                UPlace::Object(path, off) => {
                    let (_, build_id) = crate::usym::object_identity(&path);
                    let object = path.display().to_string();
                    if !objects.contains(&object) {
                        objects.push(object.clone());
                    }
                    Frame {
                        object,
                        build_id,
                        address: off,
                        function,
                    }
                }
                UPlace::Unknown(address) => Frame {
                    object: "[unknown]".to_string(),
                    build_id: None,
                    address,
                    function,
                },
                // Code no object holds, named by the process's perf map.
                UPlace::Jit(_) => Frame {
                    object: "[jit]".to_string(),
                    build_id: None,
                    address: 0,
                    function,
                },
            }
        })
        .collect()
}

/// A row's value as a sample's: its scalar (a distribution's count of
/// values), divided by the `normalize()` factor.
fn sample_value(v: &AggValue, normal: u64) -> i64 {
    match v {
        AggValue::Dist(d) => {
            let n: i64 = d.buckets.iter().map(|b| b.count).sum();
            n / normal.max(1) as i64
        }
        v => v.normalized(normal),
    }
}

/// The profile of `aggs`, as protobuf bytes (not yet gzipped).
pub(crate) fn profile(aggs: &[StackAgg<'_>], time_nanos: i64, duration_nanos: i64) -> Vec<u8> {
    let mut b = Builder::new();
    let mut objects = Vec::new();
    for a in aggs {
        let ty = b.string(&a.name);
        let unit = b.string(a.unit);
        b.p.sample_type.push(proto::ValueType { r#type: ty, unit });
    }
    for (i, a) in aggs.iter().enumerate() {
        for row in a.rows {
            let mut kernel = Vec::new();
            let mut user = Vec::new();
            let mut labels = Vec::new();
            for (k, key) in row.key.iter().enumerate() {
                let name = a.labels.get(k).cloned().unwrap_or_default();
                match key {
                    KeyValue::Stack(s) => kernel.extend(kernel_frames(s)),
                    KeyValue::UStack(s) => user.extend(user_frames(s, &mut objects)),
                    KeyValue::Int(v, _) => {
                        let key = b.string(&name);
                        labels.push(proto::Label {
                            key,
                            str: 0,
                            num: *v,
                        });
                    }
                    other => {
                        let key = b.string(&name);
                        let str = b.string(&crate::metrics::label_value(other));
                        labels.push(proto::Label { key, str, num: 0 });
                    }
                }
            }
            let location_id = kernel.iter().chain(&user).map(|f| b.location(f)).collect();
            let mut value = vec![0i64; aggs.len()];
            value[i] = sample_value(&row.value, a.normal);
            b.p.sample.push(proto::Sample {
                location_id,
                value,
                label: labels,
            });
        }
    }
    let comment = b.string("dtrace");
    let mut p = b.finish(&objects);
    p.comment.push(comment);
    p.time_nanos = time_nanos;
    p.duration_nanos = duration_nanos;
    p.encode_to_vec()
}

/// Writes `bytes` gzipped to `w`.
pub(crate) fn write_gzipped(w: impl Write, bytes: &[u8]) -> io::Result<()> {
    let mut gz = flate2::write::GzEncoder::new(w, flate2::Compression::default());
    gz.write_all(bytes)?;
    gz.finish()?.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: Vec<KeyValue>, v: i64) -> AggEntry {
        AggEntry {
            key,
            raw_key: Vec::new(),
            merged_keys: Vec::new(),
            value: AggValue::Count(v),
            percpu: None,
        }
    }

    #[test]
    fn samples_and_labels() {
        let stack: Vec<u8> = [0u64].iter().flat_map(|w| w.to_ne_bytes()).collect();
        let rows = vec![
            entry(
                vec![
                    KeyValue::Str(b"sh".to_vec()),
                    KeyValue::Stack(stack.clone()),
                ],
                3,
            ),
            entry(
                vec![
                    KeyValue::Int(7, dtrace_lang::types::INT),
                    KeyValue::Stack(stack.clone()),
                ],
                4,
            ),
        ];
        let bytes = profile(
            &[StackAgg {
                name: "count".into(),
                unit: "count",
                labels: vec!["key1".into(), "key2".into()],
                rows: &rows,
                normal: 1,
            }],
            1,
            2,
        );
        let p = proto::Profile::decode(bytes.as_slice()).unwrap();
        assert_eq!(p.string_table[0], "");
        assert_eq!(p.sample.len(), 2);
        assert_eq!(p.sample[0].value, vec![3]);
        assert_eq!(p.sample[1].value, vec![4]);
        let l = &p.sample[0].label[0];
        assert_eq!(p.string_table[l.key as usize], "key1");
        assert_eq!(p.string_table[l.str as usize], "sh");
        assert_eq!(p.sample[1].label[0].num, 7);
        assert_eq!(p.sample_type.len(), 1);
        assert_eq!(p.string_table[p.sample_type[0].r#type as usize], "count");
    }

    #[test]
    fn gzip_round_trip() {
        let mut out = Vec::new();
        write_gzipped(&mut out, b"profile").unwrap();
        let mut back = Vec::new();
        use std::io::Read;
        flate2::read::GzDecoder::new(out.as_slice())
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, b"profile");
    }
}
