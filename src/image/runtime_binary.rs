//! The operator-rs binary that a Helm project with `runtime: operator-rs` packages into its
//! image: whether it can run there (a Linux ELF executable for the image's platform), checked
//! from its header before anything is built. `build` makes operator-rs's base image from it
//! ([`super::base_image`]).

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// The CPU architectures operator-rs runtime images are built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    Amd64,
    Arm64,
}

impl Arch {
    /// `e_machine` of an ELF file for this architecture.
    fn elf_machine(self) -> u16 {
        match self {
            Arch::Amd64 => 62,
            Arch::Arm64 => 183,
        }
    }

    /// The architecture as a platform names it (`linux/<arch>`).
    pub fn platform_name(self) -> &'static str {
        match self {
            Arch::Amd64 => "amd64",
            Arch::Arm64 => "arm64",
        }
    }

    /// The Rust target whose binaries run on it.
    pub fn rust_target(self) -> &'static str {
        match self {
            Arch::Amd64 => "x86_64-unknown-linux-gnu",
            Arch::Arm64 => "aarch64-unknown-linux-gnu",
        }
    }

    /// The architecture of this machine, which builders default to.
    pub fn host() -> Option<Arch> {
        match std::env::consts::ARCH {
            "x86_64" => Some(Arch::Amd64),
            "aarch64" => Some(Arch::Arm64),
            _ => None,
        }
    }

    /// The architecture of `--platform` (`linux/amd64`, `linux/arm64`, `linux/arm64/v8`).
    pub fn from_platform(platform: &str) -> Result<Arch, String> {
        let mut parts = platform.split('/');
        let os = parts.next().unwrap_or_default();
        let arch = parts.next().unwrap_or_default();
        let variant = parts.next();
        if os != "linux" {
            return Err(format!(
                "--platform {platform}: an operator-rs runtime image runs Linux; use linux/amd64 or linux/arm64"
            ));
        }
        match (arch, variant, parts.next()) {
            ("amd64" | "x86_64", None, None) => Ok(Arch::Amd64),
            ("arm64" | "aarch64", None | Some("v8"), None) => Ok(Arch::Arm64),
            _ => Err(format!(
                "--platform {platform}: operator-rs runtime images are built for linux/amd64 and linux/arm64"
            )),
        }
    }
}

/// The fields of an ELF header the check needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfHeader {
    pub class64: bool,
    pub little_endian: bool,
    pub os_abi: u8,
    pub file_type: u16,
    pub machine: u16,
}

/// What the first bytes of a file say it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Elf(ElfHeader),
    /// Not ELF; a description of what it looks like.
    Other(&'static str),
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Other(what) => f.write_str(what),
            Kind::Elf(elf) => {
                let bits = if elf.class64 { "64-bit" } else { "32-bit" };
                let order = if elf.little_endian { "LSB" } else { "MSB" };
                let file_type = match elf.file_type {
                    1 => "relocatable object",
                    2 | 3 => "executable",
                    4 => "core dump",
                    _ => "file of unknown type",
                };
                write!(
                    f,
                    "an ELF {bits} {order} {file_type} for {}",
                    machine_name(elf.machine)
                )?;
                if !matches!(elf.os_abi, 0 | 3) {
                    write!(f, " ({})", os_abi_name(elf.os_abi))?;
                }
                Ok(())
            }
        }
    }
}

fn machine_name(machine: u16) -> String {
    match machine {
        3 => "x86 (32-bit)".to_string(),
        8 => "MIPS".to_string(),
        20 => "PowerPC".to_string(),
        21 => "PowerPC 64".to_string(),
        22 => "s390".to_string(),
        40 => "ARM (32-bit)".to_string(),
        62 => "x86_64 (amd64)".to_string(),
        183 => "aarch64 (arm64)".to_string(),
        243 => "RISC-V".to_string(),
        other => format!("machine {other}"),
    }
}

fn os_abi_name(os_abi: u8) -> String {
    match os_abi {
        0 | 3 => "Linux".to_string(),
        2 => "NetBSD".to_string(),
        6 => "Solaris".to_string(),
        9 => "FreeBSD".to_string(),
        12 => "OpenBSD".to_string(),
        other => format!("OS ABI {other}"),
    }
}

/// Reads what `bytes` (the start of a file) are. Never panics, whatever the bytes.
pub fn identify(bytes: &[u8]) -> Kind {
    if bytes.starts_with(b"\x7fELF") {
        // e_ident (16 bytes), e_type and e_machine (2 bytes each): 20 bytes for what we read.
        let (Some(&class), Some(&data), Some(&os_abi), Some(rest)) =
            (bytes.get(4), bytes.get(5), bytes.get(7), bytes.get(16..20))
        else {
            return Kind::Other("a truncated ELF file");
        };
        if !matches!(class, 1 | 2) || !matches!(data, 1 | 2) {
            return Kind::Other("an ELF file with an invalid header");
        }
        let little_endian = data == 1;
        let half = |b: &[u8]| {
            let pair = [b[0], b[1]];
            if little_endian {
                u16::from_le_bytes(pair)
            } else {
                u16::from_be_bytes(pair)
            }
        };
        return Kind::Elf(ElfHeader {
            class64: class == 2,
            little_endian,
            os_abi,
            file_type: half(&rest[0..2]),
            machine: half(&rest[2..4]),
        });
    }
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    Kind::Other(
        if starts(&[0xcf, 0xfa, 0xed, 0xfe])
            || starts(&[0xce, 0xfa, 0xed, 0xfe])
            || starts(&[0xca, 0xfe, 0xba, 0xbe])
        {
            "a Mach-O executable (macOS)"
        } else if starts(b"MZ") {
            "a Windows (PE) executable"
        } else if starts(b"#!") {
            "a script"
        } else if bytes.is_empty() {
            "an empty file"
        } else {
            "not an executable (no ELF header)"
        },
    )
}

/// Whether a file of `kind` runs on Linux for `arch`; `Err` says what it needs instead.
fn runs_on(kind: &Kind, arch: Arch) -> Result<(), &'static str> {
    match kind {
        Kind::Other(_) => Err("a Linux ELF executable"),
        Kind::Elf(elf) => {
            if !matches!(elf.os_abi, 0 | 3) {
                Err("a Linux executable, not one for another system")
            } else if !matches!(elf.file_type, 2 | 3) {
                Err("an executable, not an object file or core dump")
            } else if !elf.class64 || !elf.little_endian || elf.machine != arch.elf_machine() {
                Err("an executable for the image's architecture")
            } else {
                Ok(())
            }
        }
    }
}

#[derive(Debug, Error)]
pub enum RuntimeBinaryError {
    #[error("cannot read {what} {path}: {error}")]
    Read {
        what: String,
        path: PathBuf,
        error: std::io::Error,
    },
    /// The whole message: what the file is, what the image needs, and the ways on.
    #[error("{0}")]
    CannotRun(String),
    #[error("{what} {path} is not executable (no x permission): chmod +x it")]
    NotExecutable { what: String, path: PathBuf },
}

/// Checks that the file at `path` can run in an image for `arch`. `what` names it in errors
/// ("--runtime-binary", "this operator-rs").
pub fn check(path: &Path, what: &str, arch: Arch) -> Result<(), RuntimeBinaryError> {
    let read = |error| RuntimeBinaryError::Read {
        what: what.to_string(),
        path: path.to_path_buf(),
        error,
    };
    let metadata = std::fs::metadata(path).map_err(read)?;
    if !metadata.is_file() {
        return Err(read(std::io::Error::other("not a regular file")));
    }
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)
        .and_then(|file| file.take(64).read_to_end(&mut head))
        .map_err(read)?;
    let kind = identify(&head);
    if let Err(needed) = runs_on(&kind, arch) {
        // An executable for the other architecture could go into an image for that one.
        let other_platform = match &kind {
            Kind::Elf(elf) => [Arch::Amd64, Arch::Arm64]
                .into_iter()
                .find(|a| a.elf_machine() == elf.machine && runs_on(&kind, *a).is_ok())
                .map(|a| format!(", or build for --platform linux/{}", a.platform_name()))
                .unwrap_or_default(),
            Kind::Other(_) => String::new(),
        };
        let target = arch.rust_target();
        return Err(RuntimeBinaryError::CannotRun(format!(
            "{what} {} cannot run in the image: it is {kind}, but linux/{} needs {needed}. Pass --runtime-binary PATH with an operator-rs built for {target} (cargo build --release --target {target}){other_platform}",
            path.display(),
            arch.platform_name(),
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o111 == 0 {
            return Err(RuntimeBinaryError::NotExecutable {
                what: what.to_string(),
                path: path.to_path_buf(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ELF header with the fields the check reads.
    fn elf(class: u8, data: u8, os_abi: u8, file_type: u16, machine: u16) -> Vec<u8> {
        let mut bytes = vec![0u8; 64];
        bytes[..4].copy_from_slice(b"\x7fELF");
        bytes[4] = class;
        bytes[5] = data;
        bytes[6] = 1;
        bytes[7] = os_abi;
        let (t, m) = if data == 2 {
            (file_type.to_be_bytes(), machine.to_be_bytes())
        } else {
            (file_type.to_le_bytes(), machine.to_le_bytes())
        };
        bytes[16..18].copy_from_slice(&t);
        bytes[18..20].copy_from_slice(&m);
        bytes
    }

    fn verdict(bytes: &[u8], arch: Arch) -> Result<(), &'static str> {
        runs_on(&identify(bytes), arch)
    }

    #[test]
    fn linux_executables_of_the_platforms_architecture_run() {
        // A PIE (ET_DYN) as cargo links by default, and a static ET_EXEC.
        assert_eq!(verdict(&elf(2, 1, 0, 3, 62), Arch::Amd64), Ok(()));
        assert_eq!(verdict(&elf(2, 1, 3, 2, 62), Arch::Amd64), Ok(()));
        assert_eq!(verdict(&elf(2, 1, 0, 3, 183), Arch::Arm64), Ok(()));
    }

    #[test]
    fn other_architectures_systems_and_files_are_refused() {
        assert!(verdict(&elf(2, 1, 0, 3, 183), Arch::Amd64).is_err());
        assert!(verdict(&elf(2, 1, 0, 3, 62), Arch::Arm64).is_err());
        // 32-bit x86, big-endian, FreeBSD, an object file.
        assert!(verdict(&elf(1, 1, 0, 2, 3), Arch::Amd64).is_err());
        assert!(verdict(&elf(2, 2, 0, 2, 62), Arch::Amd64).is_err());
        assert!(verdict(&elf(2, 1, 9, 2, 62), Arch::Amd64).is_err());
        assert!(verdict(&elf(2, 1, 0, 1, 62), Arch::Amd64).is_err());
        for (bytes, described) in [
            (&[0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1][..], "Mach-O"),
            (b"MZ\x90\x00", "Windows"),
            (b"#!/bin/sh\n", "script"),
            (b"", "empty"),
            (b"\x7fELF\x02", "truncated"),
            (b"hello", "not an executable"),
        ] {
            let kind = identify(bytes);
            assert!(kind.to_string().contains(described), "{kind}");
            assert!(runs_on(&kind, Arch::Amd64).is_err());
        }
    }

    #[test]
    fn names_what_a_file_is() {
        assert_eq!(
            identify(&elf(2, 1, 0, 3, 183)).to_string(),
            "an ELF 64-bit LSB executable for aarch64 (arm64)"
        );
        assert_eq!(
            identify(&elf(2, 1, 9, 2, 62)).to_string(),
            "an ELF 64-bit LSB executable for x86_64 (amd64) (FreeBSD)"
        );
    }

    #[test]
    fn never_panics_on_arbitrary_bytes() {
        // Every prefix of real headers and a deterministic spread of random-looking bytes.
        let mut seeds = vec![elf(2, 1, 0, 3, 62), elf(7, 9, 200, 0xffff, 0xffff)];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 40) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|i| (state >> (i % 8 * 8)) as u8).collect();
            if state.is_multiple_of(2) && bytes.len() >= 4 {
                bytes[..4].copy_from_slice(b"\x7fELF");
            }
            seeds.push(bytes);
        }
        for bytes in &seeds {
            for end in 0..=bytes.len() {
                let kind = identify(&bytes[..end]);
                let _ = kind.to_string();
                let _ = runs_on(&kind, Arch::Amd64);
            }
        }
    }

    #[test]
    fn platforms_name_an_architecture() {
        assert_eq!(Arch::from_platform("linux/amd64"), Ok(Arch::Amd64));
        assert_eq!(Arch::from_platform("linux/arm64/v8"), Ok(Arch::Arm64));
        assert!(Arch::from_platform("linux/arm/v7").is_err());
        assert!(
            Arch::from_platform("windows/amd64")
                .unwrap_err()
                .contains("runs Linux")
        );
        assert!(Arch::from_platform("").is_err());
    }

    #[test]
    fn checks_the_file_for_the_images_platform() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("tool");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let err = check(&script, "--runtime-binary", Arch::Amd64)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&script.display().to_string()), "{err}");
        assert!(err.contains("a script"), "{err}");
        assert!(
            err.contains("linux/amd64 needs a Linux ELF executable"),
            "{err}"
        );
        let missing = check(&dir.path().join("nope"), "--runtime-binary", Arch::Amd64);
        assert!(matches!(missing, Err(RuntimeBinaryError::Read { .. })));

        let arm = dir.path().join("arm");
        std::fs::write(&arm, elf(2, 1, 0, 3, 183)).unwrap();
        let err = check(&arm, "--runtime-binary", Arch::Amd64)
            .unwrap_err()
            .to_string();
        assert!(err.contains("aarch64"), "{err}");
        assert!(err.contains("--platform linux/arm64"), "{err}");
    }
}
