//! The `process_*` metrics of Prometheus's process collector, read from `/proc` at each scrape
//! as the Go client reads them. A value that cannot be read (another platform, a hardened
//! `/proc`) is left out rather than reported as zero.

use super::text::{Encoder, Kind};

/// This process's figures at one moment.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Process {
    pub cpu_seconds: Option<f64>,
    pub resident_bytes: Option<f64>,
    pub virtual_bytes: Option<f64>,
    pub virtual_max_bytes: Option<f64>,
    /// Seconds since the Unix epoch.
    pub start_time: Option<f64>,
    pub open_fds: Option<f64>,
    pub max_fds: Option<f64>,
    /// The network namespace's IP octets, as `/proc/self/net/netstat` counts them.
    pub network_receive_bytes: Option<f64>,
    pub network_transmit_bytes: Option<f64>,
}

impl Process {
    /// Reads the running process.
    pub fn read() -> Process {
        let mut process = Process::default();
        #[cfg(target_os = "linux")]
        linux::read(&mut process);
        process
    }

    /// Writes the families that have a value, in name order.
    pub fn encode(&self, encoder: &mut Encoder) {
        let families = [
            (
                "process_cpu_seconds_total",
                "User and system CPU time of the process, in seconds",
                Kind::Counter,
                self.cpu_seconds,
            ),
            (
                "process_max_fds",
                "The process's limit of open file descriptors",
                Kind::Gauge,
                self.max_fds,
            ),
            (
                "process_network_receive_bytes_total",
                "Bytes received over IP in the process's network namespace",
                Kind::Counter,
                self.network_receive_bytes,
            ),
            (
                "process_network_transmit_bytes_total",
                "Bytes sent over IP in the process's network namespace",
                Kind::Counter,
                self.network_transmit_bytes,
            ),
            (
                "process_open_fds",
                "File descriptors the process has open",
                Kind::Gauge,
                self.open_fds,
            ),
            (
                "process_resident_memory_bytes",
                "Resident memory of the process, in bytes",
                Kind::Gauge,
                self.resident_bytes,
            ),
            (
                "process_start_time_seconds",
                "When the process started, in seconds since the Unix epoch",
                Kind::Gauge,
                self.start_time,
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory of the process, in bytes",
                Kind::Gauge,
                self.virtual_bytes,
            ),
            (
                "process_virtual_memory_max_bytes",
                "The process's limit of virtual memory, in bytes",
                Kind::Gauge,
                self.virtual_max_bytes,
            ),
        ];
        for (name, help, kind, value) in families {
            if let Some(value) = value {
                encoder.family(name, help, kind);
                encoder.sample(name, &[], value);
            }
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use rustix::process::{Resource, getrlimit};

    use super::Process;

    /// The clock ticks of `/proc`: Linux reports them in USER_HZ, 100 on the architectures
    /// that run Kubernetes, whatever the kernel's own tick rate (Go's procfs assumes it too).
    const TICKS: f64 = 100.0;

    pub(super) fn read(process: &mut Process) {
        if let Some(stat) = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|text| Stat::parse(&text))
        {
            process.cpu_seconds = Some((stat.utime + stat.stime) as f64 / TICKS);
            process.virtual_bytes = Some(stat.vsize as f64);
            process.start_time = std::fs::read_to_string("/proc/stat")
                .ok()
                .and_then(|text| boot_time(&text))
                .map(|boot| boot as f64 + stat.starttime as f64 / TICKS);
        }
        // VmRSS is stat's resident pages already multiplied by the page size, which is not
        // always 4 KiB (arm64 kernels with 64 KiB pages).
        process.resident_bytes = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|text| resident_kib(&text))
            .map(|kib| kib as f64 * 1024.0);
        process.open_fds = std::fs::read_dir("/proc/self/fd")
            .ok()
            .map(|entries| entries.count() as f64);
        // An unlimited limit is the largest u64, as Go's procfs reads "unlimited".
        let limit = |resource| getrlimit(resource).current.unwrap_or(u64::MAX) as f64;
        process.max_fds = Some(limit(Resource::Nofile));
        process.virtual_max_bytes = Some(limit(Resource::As));
        if let Some((received, sent)) = std::fs::read_to_string("/proc/self/net/netstat")
            .ok()
            .and_then(|text| ip_octets(&text))
        {
            process.network_receive_bytes = Some(received);
            process.network_transmit_bytes = Some(sent);
        }
    }

    /// The fields of `/proc/self/stat` that the metrics need.
    #[derive(Debug, PartialEq)]
    pub(super) struct Stat {
        /// Clock ticks in user and kernel mode.
        pub utime: u64,
        pub stime: u64,
        /// Clock ticks after boot when the process started.
        pub starttime: u64,
        pub vsize: u64,
    }

    impl Stat {
        pub(super) fn parse(text: &str) -> Option<Stat> {
            // The command name in parentheses may hold spaces and parentheses itself: the
            // fields start after its last ')', with the state (field 3 of proc(5)).
            let (_, rest) = text.rsplit_once(')')?;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let field = |number: usize| fields.get(number - 3)?.parse::<u64>().ok();
            Some(Stat {
                utime: field(14)?,
                stime: field(15)?,
                starttime: field(22)?,
                vsize: field(23)?,
            })
        }
    }

    /// `VmRSS` of `/proc/self/status`, in KiB.
    pub(super) fn resident_kib(text: &str) -> Option<u64> {
        text.lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.split_whitespace().next()?.parse().ok())
    }

    /// `btime` of `/proc/stat`: the boot time in seconds since the epoch.
    pub(super) fn boot_time(text: &str) -> Option<u64> {
        text.lines()
            .find_map(|line| line.strip_prefix("btime "))
            .and_then(|value| value.trim().parse().ok())
    }

    /// `InOctets` and `OutOctets` of the `IpExt` lines (a line of names, then one of values).
    pub(super) fn ip_octets(text: &str) -> Option<(f64, f64)> {
        let mut lines = text.lines().filter(|l| l.starts_with("IpExt:"));
        let names = lines.next()?.split_whitespace().skip(1);
        let values = lines.next()?.split_whitespace().skip(1);
        let mut received = None;
        let mut sent = None;
        for (name, value) in names.zip(values) {
            match name {
                "InOctets" => received = value.parse().ok(),
                "OutOctets" => sent = value.parse().ok(),
                _ => {}
            }
        }
        Some((received?, sent?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn proc_files_are_read_field_by_field() {
        use linux::*;
        let stat = "4242 (tokio (rt) x) S 1 4242 4242 0 -1 4194560 1507 0 0 0 250 75 0 0 20 0 \
                    9 0 123456 987654144 8000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 \
                    1 0 0 0 0 0";
        assert_eq!(
            Stat::parse(stat),
            Some(Stat {
                utime: 250,
                stime: 75,
                starttime: 123456,
                vsize: 987654144,
            })
        );
        assert_eq!(Stat::parse("12 (short) S 1"), None);
        assert_eq!(
            resident_kib("Name:\tx\nVmSize:\t  99 kB\nVmRSS:\t   31588 kB\n"),
            Some(31588)
        );
        assert_eq!(
            boot_time("cpu  1 2 3\nintr 5\nbtime 1764720000\nprocesses 9\n"),
            Some(1764720000)
        );
        let netstat = "TcpExt: SyncookiesSent SyncookiesRecv\nTcpExt: 0 0\n\
                       IpExt: InNoRoutes InTruncatedPkts InMcastPkts OutMcastPkts InBcastPkts OutBcastPkts InOctets OutOctets\n\
                       IpExt: 0 0 0 0 0 0 123456 654321\n";
        assert_eq!(ip_octets(netstat), Some((123456.0, 654321.0)));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_figures() {
        let process = Process::read();
        assert!(
            process.resident_bytes.is_some_and(|b| b > 0.0),
            "{process:?}"
        );
        assert!(process.open_fds.is_some_and(|n| n >= 3.0), "{process:?}");
        assert!(process.start_time.is_some_and(|t| t > 1.5e9), "{process:?}");
        assert!(process.cpu_seconds.is_some(), "{process:?}");
    }

    #[test]
    fn only_what_was_read_is_written() {
        let process = Process {
            open_fds: Some(12.0),
            ..Process::default()
        };
        let mut encoder = Encoder::default();
        process.encode(&mut encoder);
        let text = encoder.finish();
        assert!(
            text.ends_with("# TYPE process_open_fds gauge\nprocess_open_fds 12\n"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 3, "{text}");
    }
}
