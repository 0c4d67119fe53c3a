//! The on-disk cache of compiled kernels: a second process loads a kernel's machine code
//! instead of compiling it again.
//!
//! An entry is keyed by everything the machine code depends on: the CUDA source text, the
//! target architecture, NVRTC's version and its options ([`crate::compile::NVRTC_OPTIONS`]).
//! The file name is a 64-bit hash of that key; the file holds the whole key before the image,
//! and a read compares it byte for byte, so a hash collision or a stale or truncated file is a
//! miss, never a wrong kernel. Writes go to a temporary file renamed into place, so concurrent
//! processes never read half an entry.
//!
//! Where: `TESSEL_KERNEL_CACHE` (a directory, or `off`), else `$XDG_CACHE_HOME/tessel/kernels`,
//! else `$HOME/.cache/tessel/kernels`; no cache when none of these is set.
//!
//! ```
//! use tessel_kernels::cache::{CacheKey, DiskCache};
//! let dir = std::env::temp_dir().join(format!("tessel_cache_doc_{}", std::process::id()));
//! let cache = DiskCache::at(&dir);
//! let key = CacheKey::new("extern \"C\" __global__ void k() {}", "sm_90a", (13, 0));
//! assert!(cache.get(&key).is_none());
//! cache.put(&key, b"machine code").unwrap();
//! assert_eq!(cache.get(&key).unwrap(), b"machine code");
//! // Another source (or architecture, or NVRTC version) is another entry.
//! let other = CacheKey::new("extern \"C\" __global__ void k2() {}", "sm_90a", (13, 0));
//! assert!(cache.get(&other).is_none());
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::compile::NVRTC_OPTIONS;

/// What a compiled kernel depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheKey {
    text: Vec<u8>,
}

impl CacheKey {
    /// The key of `source` compiled for `arch` (e.g. `sm_90a`) by NVRTC `version` with
    /// [`NVRTC_OPTIONS`].
    pub fn new(source: &str, arch: &str, version: (i32, i32)) -> CacheKey {
        let mut text = format!(
            "tessel kernel cache v1\narch {arch}\nnvrtc {}.{}\noptions {}\nsource {}\n",
            version.0,
            version.1,
            NVRTC_OPTIONS.join(" "),
            source.len()
        )
        .into_bytes();
        text.extend_from_slice(source.as_bytes());
        text.push(b'\n');
        CacheKey { text }
    }

    /// 64-bit FNV-1a of the key (the file name).
    fn hash(&self) -> u64 {
        self.text.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }
}

/// A directory of compiled kernels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// The cache in `dir` (created on the first write).
    pub fn at(dir: &Path) -> DiskCache {
        DiskCache {
            dir: dir.to_path_buf(),
        }
    }

    /// The cache the environment names (see the module docs), or `None`.
    ///
    /// ```
    /// // TESSEL_KERNEL_CACHE=off turns it off; otherwise a directory is chosen from it,
    /// // XDG_CACHE_HOME or HOME.
    /// let _ = tessel_kernels::cache::DiskCache::from_env();
    /// ```
    pub fn from_env() -> Option<DiskCache> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(dir) = var("TESSEL_KERNEL_CACHE") {
            if dir == "off" {
                return None;
            }
            return Some(DiskCache::at(Path::new(&dir)));
        }
        let base = var("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(DiskCache::at(&base.join("tessel").join("kernels")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(format!("{:016x}.bin", key.hash()))
    }

    /// The image stored for `key`, or `None` (no entry, another key under the same hash, or a
    /// damaged file).
    pub fn get(&self, key: &CacheKey) -> Option<Vec<u8>> {
        let data = fs::read(self.path(key)).ok()?;
        let (head, image) = data.split_at_checked(key.text.len())?;
        (head == key.text.as_slice() && !image.is_empty()).then(|| image.to_vec())
    }

    /// Stores `image` for `key` (atomically: a temporary file renamed into place).
    pub fn put(&self, key: &CacheKey, image: &[u8]) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let path = self.path(key);
        let tmp = self
            .dir
            .join(format!(".{:016x}.{}.tmp", key.hash(), std::process::id()));
        {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(&key.text)?;
            f.write_all(image)?;
            f.sync_all()?;
        }
        fs::rename(&tmp, &path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("tessel_cache_{name}_{}", std::process::id()))
    }

    #[test]
    fn a_damaged_or_foreign_entry_is_a_miss() {
        let dir = temp("damaged");
        let cache = DiskCache::at(&dir);
        let key = CacheKey::new("src", "sm_80", (13, 0));
        cache.put(&key, b"image").unwrap();
        // Truncated: the key is cut short.
        let path = cache.path(&key);
        let data = fs::read(&path).unwrap();
        fs::write(&path, &data[..data.len() / 2]).unwrap();
        assert!(cache.get(&key).is_none());
        // Another key written under this key's file name (a hash collision).
        let other = CacheKey::new("other", "sm_80", (13, 0));
        let mut forged = other.text.clone();
        forged.extend_from_slice(b"image");
        fs::write(&path, forged).unwrap();
        assert!(cache.get(&key).is_none());
        // The NVRTC version is part of the key.
        cache.put(&key, b"image").unwrap();
        assert!(cache.get(&CacheKey::new("src", "sm_80", (13, 1))).is_none());
        assert_eq!(cache.get(&key).unwrap(), b"image");
        fs::remove_dir_all(&dir).unwrap();
    }
}
