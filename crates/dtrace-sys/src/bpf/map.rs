//! Typed map handles. A `Map` owns its descriptor and knows what the kernel
//! will read and write for it (key size, value size, whether a value is one
//! per possible CPU, and how many CPUs that is). Every safe method checks
//! the caller's slices against the handle before the system call, so the
//! kernel can never write past, or read past, a Rust buffer.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};

use super::{
    fd_result, info_by_fd, obj_name, sys_bpf, MapBatchAttr, MapCreateAttr, MapElemAttr,
    MapInfoHead, MapType, BPF_ANY, BPF_EXIST, BPF_MAP_CREATE, BPF_MAP_DELETE_ELEM, BPF_MAP_FREEZE,
    BPF_MAP_GET_NEXT_KEY, BPF_MAP_LOOKUP_BATCH, BPF_MAP_LOOKUP_ELEM, BPF_MAP_UPDATE_BATCH,
    BPF_MAP_UPDATE_ELEM, BPF_NOEXIST,
};

/// What the kernel reads and writes for a map: fixed at creation.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shape {
    /// The kernel's map type number (`map_type` is `None` for types whose
    /// value sizes this crate does not know: no data operation is allowed
    /// on those).
    raw_type: u32,
    map_type: Option<MapType>,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    flags: u32,
    /// CPUs a per-CPU value spans (the possible CPUs, counted once when
    /// the handle was made); 1 for other maps.
    ncpus: usize,
    name: String,
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

impl Shape {
    fn is_percpu(&self) -> bool {
        self.map_type.is_some_and(MapType::is_percpu)
    }

    /// Bytes between consecutive CPUs' values (the kernel rounds each
    /// per-CPU value up to 8 bytes).
    fn stride(&self) -> usize {
        if self.is_percpu() {
            (self.value_size as usize).div_ceil(8) * 8
        } else {
            self.value_size as usize
        }
    }

    /// Bytes a lookup writes and an update reads, for one key.
    fn value_len(&self) -> usize {
        self.stride() * self.ncpus
    }

    /// Refuses element operations on maps whose sizes are unknown to us or
    /// that have no elements (ring buffers).
    fn check_elements(&self) -> io::Result<()> {
        match self.map_type {
            Some(MapType::Ringbuf) => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "BPF map '{}' is a ring buffer: it has no elements",
                    self.name
                ),
            )),
            Some(MapType::TaskStorage) => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "BPF map '{}' is task storage: its elements are the programs'",
                    self.name
                ),
            )),
            Some(_) => Ok(()),
            None => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "BPF map '{}' has type {}, whose element layout is not known",
                    self.name, self.raw_type
                ),
            )),
        }
    }

    fn check_key(&self, key: &[u8]) -> io::Result<()> {
        self.check_elements()?;
        if key.len() != self.key_size as usize {
            return Err(invalid(format!(
                "BPF map '{}': key of {} bytes, expected {}",
                self.name,
                key.len(),
                self.key_size
            )));
        }
        Ok(())
    }

    fn check_value(&self, len: usize) -> io::Result<()> {
        if len != self.value_len() {
            let what = if self.is_percpu() {
                format!(
                    "{} ({} CPUs of {} bytes each)",
                    self.value_len(),
                    self.ncpus,
                    self.stride()
                )
            } else {
                self.value_len().to_string()
            };
            return Err(invalid(format!(
                "BPF map '{}': value buffer of {} bytes, expected {}",
                self.name, len, what
            )));
        }
        Ok(())
    }

    fn check_update_flags(&self, flags: u64) -> io::Result<()> {
        // Other flags (BPF_F_LOCK, per-CPU selection) change what the
        // kernel reads; only the plain ones are allowed.
        if ![BPF_ANY, BPF_NOEXIST, BPF_EXIST].contains(&flags) {
            return Err(invalid(format!(
                "BPF map '{}': unsupported update flags {:#x}",
                self.name, flags
            )));
        }
        Ok(())
    }
}

/// A BPF map: its descriptor and its shape.
#[derive(Debug)]
pub struct Map {
    fd: OwnedFd,
    shape: Shape,
}

impl Map {
    /// Creates a map. For per-CPU maps the number of possible CPUs is read
    /// now, and creation fails if it cannot be.
    pub fn create(
        map_type: MapType,
        key_size: u32,
        value_size: u32,
        max_entries: u32,
        flags: u32,
        name: &str,
    ) -> io::Result<Map> {
        let ncpus = if map_type.is_percpu() {
            crate::cpus::possible_cpus()?
        } else {
            1
        };
        let mut attr = MapCreateAttr {
            map_type: map_type as u32,
            key_size,
            value_size,
            max_entries,
            map_flags: flags,
            map_name: obj_name(name),
            ..Default::default()
        };
        let fd = sys_bpf(BPF_MAP_CREATE, &mut attr).map(fd_result)?;
        Ok(Map {
            fd,
            shape: Shape {
                raw_type: map_type as u32,
                map_type: Some(map_type),
                key_size,
                value_size,
                max_entries,
                flags,
                ncpus,
                name: name.to_string(),
            },
        })
    }

    /// Creates a task storage map whose value, made for a task the first
    /// time a program asks for it, is `value_size` bytes. The kernel
    /// requires such a map be described by BTF: an `int` key and here an
    /// array of bytes (loaded for the creation; the map keeps it).
    pub fn create_task_storage(value_size: u32, name: &str) -> io::Result<Map> {
        let btf = super::btf_load(&super::storage_btf(value_size))?;
        let mut attr = MapCreateAttr {
            map_type: MapType::TaskStorage as u32,
            key_size: 4,
            value_size,
            max_entries: 0,
            map_flags: super::BPF_F_NO_PREALLOC,
            map_name: obj_name(name),
            btf_fd: btf.as_raw_fd() as u32,
            btf_key_type_id: 1,
            btf_value_type_id: 3,
            ..Default::default()
        };
        let fd = sys_bpf(BPF_MAP_CREATE, &mut attr).map(fd_result)?;
        Ok(Map {
            fd,
            shape: Shape {
                raw_type: MapType::TaskStorage as u32,
                map_type: Some(MapType::TaskStorage),
                key_size: 4,
                value_size,
                max_entries: 0,
                flags: super::BPF_F_NO_PREALLOC,
                ncpus: 1,
                name: name.to_string(),
            },
        })
    }

    /// Creates an array of `max_entries` maps shaped as `inner` (its
    /// elements set with [`set_map`](Self::set_map)).
    pub fn create_array_of_maps(inner: &Map, max_entries: u32, name: &str) -> io::Result<Map> {
        let mut attr = MapCreateAttr {
            map_type: MapType::ArrayOfMaps as u32,
            key_size: 4,
            value_size: 4,
            max_entries,
            inner_map_fd: inner.fd.as_raw_fd() as u32,
            map_name: obj_name(name),
            ..Default::default()
        };
        let fd = sys_bpf(BPF_MAP_CREATE, &mut attr).map(fd_result)?;
        Ok(Map {
            fd,
            shape: Shape {
                raw_type: MapType::ArrayOfMaps as u32,
                map_type: Some(MapType::ArrayOfMaps),
                key_size: 4,
                value_size: 4,
                max_entries,
                flags: 0,
                ncpus: 1,
                name: name.to_string(),
            },
        })
    }

    /// Sets elements 0, 1, ... of an array of maps to `maps`. Each update
    /// of a map of maps waits for an RCU grace period (milliseconds), so
    /// they are made in one batch, which waits once; a kernel without
    /// batches for this map type gets them one by one.
    pub fn set_maps(&self, maps: &[&Map]) -> io::Result<()> {
        if self.shape.map_type != Some(MapType::ArrayOfMaps) {
            return Err(invalid(format!(
                "BPF map '{}' is not an array of maps",
                self.shape.name
            )));
        }
        if maps.len() > self.shape.max_entries as usize {
            return Err(invalid(format!(
                "{} maps for the {} elements of BPF map '{}'",
                maps.len(),
                self.shape.max_entries,
                self.shape.name
            )));
        }
        let keys: Vec<u32> = (0..maps.len() as u32).collect();
        let fds: Vec<u32> = maps.iter().map(|m| m.fd.as_raw_fd() as u32).collect();
        let mut attr = MapBatchAttr {
            keys: keys.as_ptr() as u64,
            values: fds.as_ptr() as u64,
            count: maps.len() as u32,
            map_fd: self.fd.as_raw_fd() as u32,
            ..Default::default()
        };
        match sys_bpf(BPF_MAP_UPDATE_BATCH, &mut attr) {
            Ok(_) if attr.count as usize == maps.len() => Ok(()),
            Ok(_) => Err(io::Error::other(format!(
                "BPF map '{}': {} of {} maps set",
                self.shape.name,
                attr.count,
                maps.len()
            ))),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EINVAL | libc::EOPNOTSUPP | 524)
                ) =>
            {
                for (i, m) in maps.iter().enumerate() {
                    self.set_map(i as u32, m)?;
                }
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Sets element `index` of an array of maps to `map`.
    pub fn set_map(&self, index: u32, map: &Map) -> io::Result<()> {
        if self.shape.map_type != Some(MapType::ArrayOfMaps) {
            return Err(invalid(format!(
                "BPF map '{}' is not an array of maps",
                self.shape.name
            )));
        }
        let fd = map.fd.as_raw_fd() as u32;
        self.update(&index.to_ne_bytes(), &fd.to_ne_bytes(), 0)
    }

    /// A handle for a map descriptor obtained otherwise: its shape is read
    /// back from the kernel.
    pub fn from_fd(fd: OwnedFd) -> io::Result<Map> {
        // A descriptor that is not a map makes this fail (EINVAL), and
        // every map command on it fails before the kernel touches a buffer.
        let info: MapInfoHead = info_by_fd(&fd)?;
        let map_type = MapType::from_u32(info.map_type);
        let ncpus = if map_type.is_some_and(MapType::is_percpu) {
            crate::cpus::possible_cpus()?
        } else {
            1
        };
        Ok(Map {
            fd,
            shape: Shape {
                raw_type: info.map_type,
                map_type,
                key_size: info.key_size,
                value_size: info.value_size,
                max_entries: info.max_entries,
                flags: info.map_flags,
                ncpus,
                name: super::cstr_name(&info.name),
            },
        })
    }

    /// A second handle on the same map (a duplicated descriptor).
    pub fn try_clone(&self) -> io::Result<Map> {
        Ok(Map {
            fd: self.fd.try_clone()?,
            shape: self.shape.clone(),
        })
    }

    /// The map's type, if it is one this crate knows.
    pub fn map_type(&self) -> Option<MapType> {
        self.shape.map_type
    }

    pub fn key_size(&self) -> u32 {
        self.shape.key_size
    }

    /// The size of one value (of one CPU's value, for per-CPU maps).
    pub fn value_size(&self) -> u32 {
        self.shape.value_size
    }

    pub fn max_entries(&self) -> u32 {
        self.shape.max_entries
    }

    pub fn flags(&self) -> u32 {
        self.shape.flags
    }

    pub fn name(&self) -> &str {
        &self.shape.name
    }

    /// True if each key holds one value per possible CPU.
    pub fn is_percpu(&self) -> bool {
        self.shape.is_percpu()
    }

    /// CPUs a value spans: the possible CPUs for per-CPU maps, else 1.
    pub fn ncpus(&self) -> usize {
        self.shape.ncpus
    }

    /// The length of the value buffer `lookup` fills and `update` reads:
    /// the value size, or for per-CPU maps each CPU's value rounded up to
    /// 8 bytes, times the possible CPUs.
    pub fn value_len(&self) -> usize {
        self.shape.value_len()
    }

    /// Looks `key` up into `value`, which must be `value_len()` bytes.
    /// Returns false when the key is absent.
    pub fn lookup(&self, key: &[u8], value: &mut [u8]) -> io::Result<bool> {
        self.shape.check_key(key)?;
        self.shape.check_value(value.len())?;
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: key.as_ptr() as u64,
            value_or_next_key: value.as_mut_ptr() as u64,
            ..Default::default()
        };
        absent_is_false(sys_bpf(BPF_MAP_LOOKUP_ELEM, &mut attr))
    }

    /// A buffer for `lookup_percpu` on this map, to be reused across keys.
    pub fn percpu_values(&self) -> io::Result<PerCpuValues> {
        self.shape.check_elements()?;
        if !self.is_percpu() {
            return Err(invalid(format!(
                "BPF map '{}' is not a per-CPU map",
                self.shape.name
            )));
        }
        Ok(PerCpuValues {
            buf: vec![0; self.value_len()],
            value_size: self.shape.value_size as usize,
            stride: self.shape.stride(),
            ncpus: self.shape.ncpus,
        })
    }

    /// Looks `key` up in a per-CPU map: every CPU's value, into `out`
    /// (made by `percpu_values` on a map of the same shape).
    pub fn lookup_percpu(&self, key: &[u8], out: &mut PerCpuValues) -> io::Result<bool> {
        if out.value_size != self.shape.value_size as usize
            || out.stride != self.shape.stride()
            || out.ncpus != self.shape.ncpus
        {
            return Err(invalid(format!(
                "BPF map '{}': per-CPU buffer of {} CPUs of {} bytes, expected {} of {}",
                self.shape.name, out.ncpus, out.value_size, self.shape.ncpus, self.shape.value_size
            )));
        }
        self.lookup(key, &mut out.buf)
    }

    /// Calls `each` with every key of a per-CPU map and its values, read
    /// thousands at a time (see [`lookup_batch`](Self::lookup_batch)).
    pub fn lookup_percpu_batch(
        &self,
        mut each: impl FnMut(&[u8], &PerCpuValues),
    ) -> io::Result<()> {
        let mut vals = self.percpu_values()?;
        self.lookup_batch(|k, v| {
            vals.buf.copy_from_slice(v);
            each(k, &vals)
        })
    }

    /// Calls `each` with every key of the map and its value
    /// (`value_len()` bytes: every CPU's, for a per-CPU map), read
    /// thousands at a time (BPF_MAP_LOOKUP_BATCH) rather than with two
    /// system calls a key; a kernel without batches for the map type
    /// gets the keys walked one by one. Keys added or removed meanwhile
    /// may or may not be seen, as with a walk.
    pub fn lookup_batch(&self, mut each: impl FnMut(&[u8], &[u8])) -> io::Result<()> {
        self.shape.check_elements()?;
        let (klen, vlen) = (self.shape.key_size as usize, self.value_len());
        let mut count: usize = 4096;
        let mut keys = vec![0u8; count * klen];
        let mut values = vec![0u8; count * vlen];
        // The position the kernel gives back, passed in on the next call.
        let mut token = [0u64; 2];
        let mut first = true;
        loop {
            let mut next = [0u64; 2];
            let mut attr = MapBatchAttr {
                in_batch: if first { 0 } else { token.as_ptr() as u64 },
                out_batch: next.as_mut_ptr() as u64,
                keys: keys.as_mut_ptr() as u64,
                values: values.as_mut_ptr() as u64,
                count: count as u32,
                map_fd: self.fd.as_raw_fd() as u32,
                ..Default::default()
            };
            let r = sys_bpf(BPF_MAP_LOOKUP_BATCH, &mut attr);
            let got = (attr.count as usize).min(count);
            let done = match &r {
                Ok(_) => false,
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => true,
                // A bucket holds more keys than the buffers: larger ones.
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) && count < 1 << 20 => {
                    count *= 4;
                    keys.resize(count * klen, 0);
                    values.resize(count * vlen, 0);
                    continue;
                }
                Err(e)
                    if first
                        && matches!(
                            e.raw_os_error(),
                            Some(libc::EINVAL | libc::EOPNOTSUPP | 524)
                        ) =>
                {
                    let mut value = vec![0u8; vlen];
                    for k in self.keys() {
                        let k = k?;
                        if self.lookup(&k, &mut value)? {
                            each(&k, &value);
                        }
                    }
                    return Ok(());
                }
                Err(_) => return r.map(|_| ()),
            };
            for i in 0..got {
                each(
                    &keys[i * klen..(i + 1) * klen],
                    &values[i * vlen..(i + 1) * vlen],
                );
            }
            if done {
                return Ok(());
            }
            token = next;
            first = false;
        }
    }

    /// Stores `value` (`value_len()` bytes) at `key`. `flags` is
    /// `BPF_ANY`, `BPF_NOEXIST` or `BPF_EXIST`.
    pub fn update(&self, key: &[u8], value: &[u8], flags: u64) -> io::Result<()> {
        self.shape.check_key(key)?;
        self.shape.check_value(value.len())?;
        self.shape.check_update_flags(flags)?;
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: key.as_ptr() as u64,
            value_or_next_key: value.as_ptr() as u64,
            flags,
            ..Default::default()
        };
        sys_bpf(BPF_MAP_UPDATE_ELEM, &mut attr).map(|_| ())
    }

    /// Deletes `key`; returns false if it was not there.
    pub fn delete(&self, key: &[u8]) -> io::Result<bool> {
        self.shape.check_key(key)?;
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: key.as_ptr() as u64,
            ..Default::default()
        };
        absent_is_false(sys_bpf(BPF_MAP_DELETE_ELEM, &mut attr))
    }

    /// Writes the key after `key` (the first key when `key` is None) into
    /// `next`; both are `key_size()` bytes. False at the end.
    pub fn next_key(&self, key: Option<&[u8]>, next: &mut [u8]) -> io::Result<bool> {
        if let Some(k) = key {
            self.shape.check_key(k)?;
        }
        self.shape.check_key(next)?;
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: key.map(|k| k.as_ptr() as u64).unwrap_or(0),
            value_or_next_key: next.as_mut_ptr() as u64,
            ..Default::default()
        };
        absent_is_false(sys_bpf(BPF_MAP_GET_NEXT_KEY, &mut attr))
    }

    /// Every key, in the kernel's order. A key deleted meanwhile may make
    /// the walk restart from the first key, as with any BPF hash walk.
    pub fn keys(&self) -> Keys<'_> {
        Keys {
            map: self,
            cur: None,
            done: false,
        }
    }

    /// Makes the map immutable from user space (required for read-only
    /// data the verifier may treat as constant).
    pub fn freeze(&self) -> io::Result<()> {
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            ..Default::default()
        };
        sys_bpf(BPF_MAP_FREEZE, &mut attr).map(|_| ())
    }
}

fn absent_is_false(r: io::Result<i64>) -> io::Result<bool> {
    match r {
        Ok(_) => Ok(true),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(false),
        Err(e) => Err(e),
    }
}

impl AsFd for Map {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl AsRawFd for Map {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// The keys of a map (see `Map::keys`).
pub struct Keys<'a> {
    map: &'a Map,
    cur: Option<Vec<u8>>,
    done: bool,
}

impl Iterator for Keys<'_> {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<io::Result<Vec<u8>>> {
        if self.done {
            return None;
        }
        let mut next = vec![0u8; self.map.key_size() as usize];
        match self.map.next_key(self.cur.as_deref(), &mut next) {
            Ok(true) => {
                self.cur = Some(next.clone());
                Some(Ok(next))
            }
            Ok(false) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Every CPU's value for one key of a per-CPU map.
#[derive(Clone, Debug)]
pub struct PerCpuValues {
    buf: Vec<u8>,
    value_size: usize,
    stride: usize,
    ncpus: usize,
}

impl PerCpuValues {
    pub fn ncpus(&self) -> usize {
        self.ncpus
    }

    /// The size of one CPU's value.
    pub fn value_size(&self) -> usize {
        self.value_size
    }

    /// Bytes from one CPU's value to the next.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The value of the `i`th possible CPU.
    pub fn cpu(&self, i: usize) -> Option<&[u8]> {
        let start = i.checked_mul(self.stride)?;
        self.buf.get(start..start.checked_add(self.value_size)?)
    }

    /// Each CPU's value, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.ncpus).filter_map(|i| self.cpu(i))
    }

    /// The whole buffer, as `Map::update` takes it.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The whole buffer, to fill before an update.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A handle built from known parameters on a descriptor that is not a
    /// map (/dev/null): every check below must refuse before any bpf(2)
    /// call, which would otherwise fail with an OS error.
    fn fake(map_type: MapType, key: u32, value: u32, ncpus: usize) -> Map {
        let f = std::fs::File::open("/dev/null").expect("open /dev/null");
        Map {
            fd: OwnedFd::from(f),
            shape: Shape {
                raw_type: map_type as u32,
                map_type: Some(map_type),
                key_size: key,
                value_size: value,
                max_entries: 16,
                flags: 0,
                ncpus: if map_type.is_percpu() { ncpus } else { 1 },
                name: "test".into(),
            },
        }
    }

    fn refused<T: std::fmt::Debug>(r: io::Result<T>) -> String {
        let e = r.expect_err("must be refused");
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{}", e);
        assert_eq!(
            e.raw_os_error(),
            None,
            "refused by the kernel, not the check: {}",
            e
        );
        e.to_string()
    }

    #[test]
    fn per_cpu_values_are_rounded_to_8_bytes_per_cpu() {
        let m = fake(MapType::PercpuHash, 4, 12, 3);
        assert_eq!(m.value_len(), 16 * 3);
        assert!(m.is_percpu());
        let m = fake(MapType::Hash, 4, 12, 3);
        assert_eq!(m.value_len(), 12);
        assert_eq!(m.ncpus(), 1);
    }

    #[test]
    fn short_and_long_value_buffers_are_refused() {
        let m = fake(MapType::PercpuHash, 4, 12, 2);
        let key = [0u8; 4];
        // One CPU's worth, or the unrounded size: the kernel would write
        // 32 bytes into it.
        let msg = refused(m.lookup(&key, &mut [0u8; 12]));
        assert!(
            msg.contains("value buffer of 12 bytes, expected 32"),
            "{}",
            msg
        );
        refused(m.lookup(&key, &mut [0u8; 24]));
        refused(m.lookup(&key, &mut [0u8; 40]));
        refused(m.update(&key, &[0u8; 16], BPF_ANY));
        let a = fake(MapType::Array, 4, 8, 1);
        refused(a.lookup(&key, &mut [0u8; 7]));
        refused(a.update(&key, &[0u8; 4], BPF_ANY));
    }

    #[test]
    fn keys_of_the_wrong_size_are_refused() {
        let m = fake(MapType::Hash, 16, 8, 1);
        let msg = refused(m.lookup(&[0u8; 4], &mut [0u8; 8]));
        assert!(msg.contains("key of 4 bytes, expected 16"), "{}", msg);
        refused(m.update(&[0u8; 15], &[0u8; 8], BPF_ANY));
        refused(m.delete(&[0u8; 8]));
        refused(m.delete(&[]));
        // next_key: both the current key and the output.
        refused(m.next_key(None, &mut [0u8; 8]));
        refused(m.next_key(Some(&[0u8; 4]), &mut [0u8; 16]));
        let mut keys = m.keys();
        assert!(keys.next().is_some_and(|k| k.is_err()));
        assert!(keys.next().is_none());
    }

    #[test]
    fn unusual_update_flags_are_refused() {
        let m = fake(MapType::Hash, 4, 8, 1);
        let msg = refused(m.update(&[0u8; 4], &[0u8; 8], 4));
        assert!(msg.contains("flags"), "{}", msg);
    }

    #[test]
    fn per_cpu_buffers_must_match_their_map() {
        let a = fake(MapType::PercpuArray, 4, 8, 4);
        let b = fake(MapType::PercpuArray, 4, 8, 2);
        let mut vals = b.percpu_values().expect("per-CPU buffer");
        assert_eq!(vals.as_bytes().len(), 16);
        refused(a.lookup_percpu(&[0u8; 4], &mut vals));
        let c = fake(MapType::PercpuArray, 4, 16, 2);
        refused(c.lookup_percpu(&[0u8; 4], &mut vals));
        refused(fake(MapType::Hash, 4, 8, 1).percpu_values());
    }

    #[test]
    fn per_cpu_values_are_split_by_stride() {
        let m = fake(MapType::PercpuHash, 4, 4, 3);
        let mut v = m.percpu_values().expect("buffer");
        assert_eq!(v.stride(), 8);
        for (i, b) in v.as_bytes_mut().iter_mut().enumerate() {
            *b = i as u8;
        }
        assert_eq!(v.cpu(1), Some(&[8u8, 9, 10, 11][..]));
        assert_eq!(v.cpu(3), None);
        assert_eq!(v.iter().count(), 3);
    }

    #[test]
    fn ring_buffers_and_unknown_types_have_no_elements() {
        let r = fake(MapType::Ringbuf, 0, 0, 1);
        let e = r.lookup(&[], &mut []).expect_err("no elements");
        assert_eq!(e.kind(), io::ErrorKind::Unsupported);
        let mut u = fake(MapType::Hash, 4, 4, 1);
        u.shape.raw_type = 12;
        u.shape.map_type = None;
        let e = u.delete(&[0u8; 4]).expect_err("unknown layout");
        assert_eq!(e.kind(), io::ErrorKind::Unsupported);
        assert_eq!(e.raw_os_error(), None);
    }

    fn root() -> bool {
        crate::geteuid() == 0
    }

    #[test]
    fn real_maps_round_trip() {
        if !root() {
            eprintln!("skipped: needs root");
            return;
        }
        let m = Map::create(MapType::Hash, 4, 8, 8, 0, "dtsys_test").expect("create hash");
        assert_eq!(m.value_len(), 8);
        m.update(&1u32.to_ne_bytes(), &7u64.to_ne_bytes(), BPF_ANY)
            .expect("update");
        let mut v = [0u8; 8];
        assert!(m.lookup(&1u32.to_ne_bytes(), &mut v).expect("lookup"));
        assert_eq!(u64::from_ne_bytes(v), 7);
        assert!(!m.lookup(&2u32.to_ne_bytes(), &mut v).expect("lookup"));
        let keys: Vec<_> = m.keys().collect::<io::Result<_>>().expect("keys");
        assert_eq!(keys, vec![1u32.to_ne_bytes().to_vec()]);
        assert!(m.delete(&1u32.to_ne_bytes()).expect("delete"));
        assert!(!m.delete(&1u32.to_ne_bytes()).expect("delete"));
        assert_eq!(m.keys().count(), 0);

        // The same map read back through its descriptor.
        let again = Map::from_fd(m.try_clone().expect("dup").fd).expect("from fd");
        assert_eq!(again.map_type(), Some(MapType::Hash));
        assert_eq!((again.key_size(), again.value_size()), (4, 8));
        assert_eq!(again.max_entries(), 8);
        assert_eq!(again.name(), "dtsys_test");
    }

    #[test]
    fn real_per_cpu_hash_read_in_batches() {
        if !root() {
            eprintln!("skipped: needs root");
            return;
        }
        const N: u32 = 10_000;
        let m = Map::create(MapType::PercpuHash, 4, 8, N, 0, "dtsys_batch").expect("create");
        let mut v = m.percpu_values().expect("buffer");
        for k in 0..N {
            for (c, chunk) in v.as_bytes_mut().chunks_mut(8).enumerate() {
                chunk.copy_from_slice(&u64::from(k * 10 + c as u32).to_ne_bytes());
            }
            m.update(&k.to_ne_bytes(), v.as_bytes(), BPF_ANY)
                .expect("update");
        }
        let mut seen = vec![false; N as usize];
        m.lookup_percpu_batch(|k, vals| {
            let k = u32::from_ne_bytes(k.try_into().expect("4 bytes"));
            assert!(!seen[k as usize], "key {} twice", k);
            seen[k as usize] = true;
            for (c, b) in vals.iter().enumerate() {
                let got = u64::from_ne_bytes(b.try_into().expect("8 bytes"));
                assert_eq!(got, u64::from(k * 10 + c as u32));
            }
        })
        .expect("batch");
        assert!(seen.iter().all(|&s| s), "every key read");
    }

    #[test]
    fn real_array_of_maps_set_in_one_batch() {
        if !root() {
            eprintln!("skipped: needs root");
            return;
        }
        let inner: Vec<Map> = (0..3)
            .map(|_| Map::create(MapType::Array, 4, 8, 1, 0, "dtsys_inner").expect("inner"))
            .collect();
        let outer = Map::create_array_of_maps(&inner[0], 4, "dtsys_outer").expect("outer");
        outer
            .set_maps(&inner.iter().collect::<Vec<_>>())
            .expect("set_maps");
        // An element set reads back as its map's ID; the fourth was not set.
        let mut id = [0u8; 4];
        for i in 0..3u32 {
            assert!(outer.lookup(&i.to_ne_bytes(), &mut id).expect("lookup"));
            assert_ne!(u32::from_ne_bytes(id), 0);
        }
        assert!(!outer.lookup(&3u32.to_ne_bytes(), &mut id).expect("lookup"));
        let five: Vec<&Map> = inner.iter().chain(inner.iter()).collect();
        refused(outer.set_maps(&five[..5]));
    }

    #[test]
    fn real_per_cpu_maps_round_trip() {
        if !root() {
            eprintln!("skipped: needs root");
            return;
        }
        let m = Map::create(MapType::PercpuArray, 4, 4, 1, 0, "dtsys_pcpu").expect("create");
        let ncpus = crate::cpus::possible_cpus().expect("possible CPUs");
        assert_eq!(m.ncpus(), ncpus);
        let mut v = m.percpu_values().expect("buffer");
        for (c, chunk) in v.as_bytes_mut().chunks_mut(8).enumerate() {
            chunk[..4].copy_from_slice(&(c as u32 + 10).to_ne_bytes());
        }
        m.update(&0u32.to_ne_bytes(), v.as_bytes(), BPF_ANY)
            .expect("update");
        let mut back = m.percpu_values().expect("buffer");
        assert!(m
            .lookup_percpu(&0u32.to_ne_bytes(), &mut back)
            .expect("lookup"));
        let got: Vec<u32> = back
            .iter()
            .map(|b| u32::from_ne_bytes(b.try_into().expect("4 bytes")))
            .collect();
        assert_eq!(got, (0..ncpus as u32).map(|c| c + 10).collect::<Vec<_>>());
        let again = Map::from_fd(m.try_clone().expect("dup").fd).expect("from fd");
        assert!(again.is_percpu());
        assert_eq!(again.value_len(), 8 * ncpus);
        m.freeze().expect("freeze");
        assert!(m
            .update(&0u32.to_ne_bytes(), back.as_bytes(), BPF_ANY)
            .is_err());
    }
}
