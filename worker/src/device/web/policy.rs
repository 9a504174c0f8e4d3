//! The host half of the navigation policy: which addresses a page in the worker's browser
//! may reach (the scheme half, shared with the API, is `argus_protocol::nav`).
//!
//! A request is decided on the addresses its host resolves to, not on its spelling
//! (`localhost`, `0x7f.1`, `[::ffff:127.0.0.1]` and a DNS name pointing at 10.0.0.5 all count
//! as what they resolve to):
//! - **never**: the worker's own DevTools port, the coordinator, NATS, the object store, the
//!   database (when the worker knows its URL), anything in `--deny-hosts`, and the cloud
//!   metadata addresses. No allow rule opens these.
//! - **allowed**: addresses matching an `--allow-hosts` rule (`host`, `host:port`, `ip`,
//!   `ip:port`, `cidr`, `cidr:port`; IPv6 in brackets).
//! - **blocked by default**: loopback, unspecified, RFC 1918, carrier-grade NAT (100.64/10),
//!   link-local (169.254/16, fe80::/10), unique-local (fc00::/7), multicast and broadcast.
//! - everything else (the public internet) is allowed.
//!
//! What it cannot decide it refuses: a name whose look-up fails or answers nothing is never
//! loaded (the browser's own look-up might have answered otherwise). The look-up is the
//! policy's [`Resolver`] (the system's; tests inject one). The browser does no look-up of
//! its own: all its traffic goes through the egress proxy (`egress`), which connects to
//! exactly the addresses [`HostPolicy::admit`] decided, so a name that rebinds between two
//! look-ups cannot move a connection.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use super::lookup::Resolver;

/// Cloud metadata endpoints (AWS/GCP/Azure/OpenStack IPv4, AWS IPv6): never reachable.
const METADATA: [IpAddr; 2] = [
    IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254)),
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254)),
];

/// An address pattern: one IP, a CIDR block or a DNS name.
#[derive(Debug, Clone, PartialEq, Eq)]
enum HostPat {
    Net(IpAddr, u8),
    Name(String),
}

/// One `--allow-hosts` / `--deny-hosts` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRule {
    host: HostPat,
    port: Option<u16>,
}

impl HostRule {
    /// Parses `host`, `host:port`, `10.0.0.0/8`, `10.0.0.0/8:443`, `[fd00::/8]:80`, `[::1]`.
    pub fn parse(s: &str) -> Result<HostRule, String> {
        let s = s.trim();
        let bad = || {
            format!(
                "host rule {s:?} is not host[:port], ip[:port] or cidr[:port] (IPv6 in [brackets])"
            )
        };
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (h, tail) = rest.split_once(']').ok_or_else(bad)?;
            let port = match tail.strip_prefix(':') {
                Some(p) => Some(p.parse::<u16>().map_err(|_| bad())?),
                None if tail.is_empty() => None,
                None => return Err(bad()),
            };
            (h, port)
        } else {
            match s.rsplit_once(':') {
                Some((h, p)) => (h, Some(p.parse::<u16>().map_err(|_| bad())?)),
                None => (s, None),
            }
        };
        if host.is_empty() {
            return Err(bad());
        }
        let pat = match host.split_once('/') {
            Some((ip, bits)) => {
                let ip: IpAddr = ip.parse().map_err(|_| bad())?;
                let bits: u8 = bits.parse().map_err(|_| bad())?;
                let max = if ip.is_ipv4() { 32 } else { 128 };
                if bits > max {
                    return Err(bad());
                }
                HostPat::Net(ip, bits)
            }
            None => match host.parse::<IpAddr>() {
                Ok(ip) => HostPat::Net(ip, if ip.is_ipv4() { 32 } else { 128 }),
                Err(_) => {
                    let ok = host
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
                    if !ok {
                        return Err(bad());
                    }
                    HostPat::Name(host.trim_end_matches('.').to_ascii_lowercase())
                }
            },
        };
        Ok(HostRule { host: pat, port })
    }

    /// A rule for exactly `addr`.
    pub fn exact(addr: SocketAddr) -> HostRule {
        let ip = canonical(addr.ip());
        HostRule {
            host: HostPat::Net(ip, if ip.is_ipv4() { 32 } else { 128 }),
            port: Some(addr.port()),
        }
    }

    fn port_ok(&self, port: u16) -> bool {
        self.port.is_none_or(|p| p == port)
    }

    /// Whether the rule covers `ip:port`; `name` is the host as written in the URL.
    fn covers(&self, name: &str, ip: IpAddr, port: u16) -> bool {
        if !self.port_ok(port) {
            return false;
        }
        match &self.host {
            HostPat::Name(n) => n == name,
            HostPat::Net(net, bits) => in_net(ip, *net, *bits),
        }
    }

    /// Like [`Self::covers`], but a rule on a local address (loopback, unspecified) covers
    /// every local address on its port: a service bound to 0.0.0.0 answers on all of them.
    fn covers_service(&self, name: &str, ip: IpAddr, port: u16) -> bool {
        if self.covers(name, ip, port) {
            return true;
        }
        match &self.host {
            HostPat::Net(net, _) if is_local(*net) => self.port_ok(port) && is_local(ip),
            _ => false,
        }
    }
}

/// IPv6 forms that carry an IPv4 address, as that address: mapped `::ffff:a.b.c.d`, NAT64
/// `64:ff9b::a.b.c.d` (RFC 6052), IPv4-compatible `::a.b.c.d` (RFC 4291 §2.5.5.1, not `::`
/// or `::1`) and 6to4 `2002:aabb:ccdd::/48` (RFC 3056), so a private IPv4 address cannot
/// pass as a public IPv6 one.
fn canonical(ip: IpAddr) -> IpAddr {
    let v4 = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        IpAddr::V4(Ipv4Addr::new(a, b, c, d))
    };
    match ip {
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return IpAddr::V4(v4);
            }
            let s = v6.segments();
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                return v4(s[6], s[7]);
            }
            if s[..6] == [0; 6] && !(v6.is_loopback() || v6.is_unspecified()) {
                return v4(s[6], s[7]);
            }
            if s[0] == 0x2002 {
                return v4(s[1], s[2]);
            }
            ip
        }
        v4 => v4,
    }
}

/// Whether `ip` is in `net`/`bits`. An IPv4 network also holds the IPv6 forms that carry
/// one of its addresses ([`canonical`]); an IPv6 network is matched on the address as
/// written (`[2002::/16]` holds every 6to4 address), and also on its IPv4 form when the
/// network itself is a full-length (/128) form of an IPv4 address (`[::ffff:10.0.0.1]`).
fn in_net(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    let v4 = |a: Ipv4Addr, n: Ipv4Addr, bits: u32| {
        let mask = u32::MAX
            .checked_shl(32u32.saturating_sub(bits))
            .unwrap_or(0);
        bits <= 32 && u32::from(a) & mask == u32::from(n) & mask
    };
    match (ip, net) {
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let bits = u32::from(bits);
            let mask = u128::MAX
                .checked_shl(128u32.saturating_sub(bits))
                .unwrap_or(0);
            if bits <= 128 && u128::from(a) & mask == u128::from(n) & mask {
                return true;
            }
            match (canonical(ip), canonical(net)) {
                (IpAddr::V4(a), IpAddr::V4(n)) if bits == 128 => v4(a, n, 32),
                _ => false,
            }
        }
        (_, IpAddr::V4(n)) => match canonical(ip) {
            IpAddr::V4(a) => v4(a, n, u32::from(bits)),
            IpAddr::V6(_) => false,
        },
        (IpAddr::V4(a), IpAddr::V6(_)) if bits == 128 => match canonical(net) {
            IpAddr::V4(n) => v4(a, n, 32),
            IpAddr::V6(_) => false,
        },
        _ => false,
    }
}

fn is_local(ip: IpAddr) -> bool {
    let ip = canonical(ip);
    ip.is_loopback() || ip.is_unspecified()
}

/// What kind of non-public address `ip` is, or `None` for a public one.
pub fn special_kind(ip: IpAddr) -> Option<&'static str> {
    let ip = canonical(ip);
    if METADATA.contains(&ip) {
        return Some("cloud metadata");
    }
    if is_local(ip) {
        return Some("loopback");
    }
    let nets: [(&str, IpAddr, u8); 11] = [
        ("private", IpAddr::V4(Ipv4Addr::new(10, 0, 0, 0)), 8),
        ("private", IpAddr::V4(Ipv4Addr::new(172, 16, 0, 0)), 12),
        ("private", IpAddr::V4(Ipv4Addr::new(192, 168, 0, 0)), 16),
        (
            "shared (CGNAT)",
            IpAddr::V4(Ipv4Addr::new(100, 64, 0, 0)),
            10,
        ),
        ("link-local", IpAddr::V4(Ipv4Addr::new(169, 254, 0, 0)), 16),
        ("this-network", IpAddr::V4(Ipv4Addr::new(0, 0, 0, 0)), 8),
        ("multicast", IpAddr::V4(Ipv4Addr::new(224, 0, 0, 0)), 4),
        ("reserved", IpAddr::V4(Ipv4Addr::new(240, 0, 0, 0)), 4),
        (
            "unique-local",
            IpAddr::V6(Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0)),
            7,
        ),
        (
            "link-local",
            IpAddr::V6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0)),
            10,
        ),
        (
            "multicast",
            IpAddr::V6(Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0)),
            8,
        ),
    ];
    nets.iter()
        .find(|(_, net, bits)| in_net(ip, *net, *bits))
        .map(|(kind, _, _)| *kind)
}

/// The worker's host policy. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct HostPolicy {
    allow: Vec<HostRule>,
    never: Vec<(HostRule, String)>,
    resolver: Resolver,
}

impl HostPolicy {
    /// A policy allowing `allow` on top of the public internet.
    pub fn new(allow: Vec<HostRule>) -> HostPolicy {
        HostPolicy {
            allow,
            never: Vec::new(),
            resolver: Resolver::system(),
        }
    }

    /// This policy, resolving names with `resolver` instead of the system's.
    pub fn with_resolver(mut self, resolver: Resolver) -> HostPolicy {
        self.resolver = resolver;
        self
    }

    /// Adds a never-reachable address, `what` naming it for the report (`the coordinator`).
    pub fn never(&mut self, rule: HostRule, what: &str) {
        self.never.push((rule, what.to_string()));
    }

    /// Adds `rule` as never reachable and, when it names a host, every address that name
    /// resolves to now (same port, or every port), so a page cannot reach the service by
    /// its address or another name. An unresolvable name is kept as a name.
    pub async fn never_resolved(&mut self, rule: HostRule, what: &str) {
        if let HostPat::Name(name) = &rule.host {
            if let Ok(addrs) =
                tokio::net::lookup_host((name.as_str(), rule.port.unwrap_or(0))).await
            {
                for a in addrs {
                    let ip = canonical(a.ip());
                    let bits = if ip.is_ipv4() { 32 } else { 128 };
                    self.never(
                        HostRule {
                            host: HostPat::Net(ip, bits),
                            port: rule.port,
                        },
                        what,
                    );
                }
            }
        }
        self.never(rule, what);
    }

    /// Adds the host and port of `url` (e.g. `nats://127.0.0.1:4222`), resolved now, as
    /// never reachable. URLs without a port use `default_port`. Unresolvable names are kept
    /// as names.
    pub async fn never_url(&mut self, url: &str, default_port: u16, what: &str) {
        let Ok(u) = reqwest::Url::parse(url) else {
            return;
        };
        let Some(host) = u.host_str() else { return };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = u.port().unwrap_or(default_port);
        let name = format!("{host}:{port}");
        match tokio::net::lookup_host((host, port)).await {
            Ok(addrs) => {
                for a in addrs {
                    self.never(HostRule::exact(a), what);
                }
            }
            Err(_) => {
                if let Ok(rule) = HostRule::parse(&name) {
                    self.never(rule, what);
                }
            }
        }
        if host.parse::<IpAddr>().is_err() {
            if let Ok(rule) = HostRule::parse(&name) {
                self.never(rule, what);
            }
        }
    }

    /// Adds `ports` of the host of `url` (each as [`Self::never_url`] would): a service's
    /// other listeners, such as an object store's master, volume and filer ports.
    pub async fn never_ports(&mut self, url: &str, ports: &[u16], what: &str) {
        let Ok(u) = reqwest::Url::parse(url) else {
            return;
        };
        let Some(host) = u.host_str() else { return };
        for port in ports {
            let one = format!("{}://{host}:{port}", u.scheme());
            self.never_url(&one, *port, what).await;
        }
    }

    /// Decides `host:port` (host as written in the URL, without brackets) given the
    /// addresses it resolves to: `Err(reason)` when the page may not reach it.
    /// No addresses at all is an `Err` (nothing to decide on is never allowed).
    pub fn decide(&self, host: &str, port: u16, addrs: &[IpAddr]) -> Result<(), String> {
        if addrs.is_empty() {
            return Err(format!("{host}:{port} has no addresses to decide on"));
        }
        let name = host.trim_end_matches('.').to_ascii_lowercase();
        for ip in addrs {
            if let Some((_, what)) = self
                .never
                .iter()
                .find(|(r, _)| r.covers_service(&name, *ip, port))
            {
                return Err(format!(
                    "{host}:{port} is {what}, never reachable from a page"
                ));
            }
            if METADATA.contains(&canonical(*ip)) {
                return Err(format!(
                    "{host}:{port} is the cloud metadata service, never reachable from a page"
                ));
            }
        }
        for ip in addrs {
            let allowed = self.allow.iter().any(|r| r.covers(&name, *ip, port));
            if let (Some(kind), false) = (special_kind(*ip), allowed) {
                return Err(format!(
                    "{host}:{port} resolves to {ip}, a {kind} address; a farm allows such \
                     hosts with --allow-hosts"
                ));
            }
        }
        Ok(())
    }

    /// Decides a URL the browser is about to request: `Err(reason)` to block it.
    ///
    /// `http(s)` and `ws(s)` are resolved and checked with [`Self::decide`]; in-page schemes
    /// (`data:`, `blob:`, `about:`) pass; every other scheme (`file:`, `chrome:`, …) is
    /// blocked.
    pub async fn check_url(&self, url: &str) -> Result<(), String> {
        let u = reqwest::Url::parse(url).map_err(|_| "the URL does not parse".to_string())?;
        match u.scheme() {
            "http" | "https" | "ws" | "wss" => {}
            "data" | "blob" | "about" => return Ok(()),
            s => return Err(format!("`{s}:` URLs are never loaded")),
        }
        let host = u
            .host_str()
            .ok_or_else(|| "the URL has no host".to_string())?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = u.port_or_known_default().unwrap_or(80);
        self.admit(host, port).await.map(|_| ())
    }

    /// The addresses `host` (as written in a URL, without brackets) has for `port`: itself
    /// for an IP literal, else the resolver's answer. A failed or empty look-up is an
    /// `Err`: a host Argus cannot resolve is one it cannot decide, so it is never loaded
    /// (the browser's own look-up might answer otherwise).
    pub async fn resolve(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, String> {
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(vec![ip]);
        }
        match self.resolver.lookup(host, port).await {
            Ok(a) if !a.is_empty() => Ok(a),
            Ok(_) => Err(format!(
                "{host} could not be resolved (no addresses); a host Argus cannot look up \
                 is never loaded"
            )),
            Err(e) => Err(format!(
                "{host} could not be resolved ({e}); a host Argus cannot look up is never \
                 loaded"
            )),
        }
    }

    /// Resolves `host:port` once and decides it: the addresses a connection may go to
    /// (every one of them passed [`Self::decide`]), or why none may.
    pub async fn admit(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, String> {
        let addrs = self.resolve(host, port).await?;
        self.decide(host, port, &addrs)?;
        Ok(addrs)
    }
}

/// Parses a comma-separated rule list (`--allow-hosts`, `--deny-hosts`).
pub fn parse_rules(s: &str) -> Result<Vec<HostRule>, String> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(HostRule::parse)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn rules_parse() {
        assert!(HostRule::parse("127.0.0.1:8090").is_ok());
        assert!(HostRule::parse("10.0.0.0/8").is_ok());
        assert!(HostRule::parse("[fd00::/8]:443").is_ok());
        assert!(HostRule::parse("intranet.test").is_ok());
        assert!(HostRule::parse("10.0.0.0/33").is_err());
        assert!(HostRule::parse("a b").is_err());
        assert!(HostRule::parse("host:port").is_err());
        assert_eq!(parse_rules("127.0.0.1:1, 10.0.0.0/8").unwrap().len(), 2);
    }

    #[tokio::test]
    async fn a_denied_name_also_denies_the_addresses_it_resolves_to() {
        let mut p = HostPolicy::new(parse_rules("127.0.0.1").unwrap());
        p.never_resolved(HostRule::parse("localhost:5432").unwrap(), "the database")
            .await;
        let e = p.decide("127.0.0.1", 5432, &[ip("127.0.0.1")]).unwrap_err();
        assert!(e.contains("the database"), "{e}");
        assert!(p.decide("127.0.0.1", 5433, &[ip("127.0.0.1")]).is_ok());
        assert!(p.decide("localhost", 5432, &[ip("127.0.0.1")]).is_err());
    }

    #[test]
    fn private_ranges_are_blocked_unless_allowed() {
        let p = HostPolicy::new(parse_rules("127.0.0.1:8090,10.0.0.0/8").unwrap());
        assert!(p.decide("127.0.0.1", 8090, &[ip("127.0.0.1")]).is_ok());
        assert!(p.decide("127.0.0.1", 8091, &[ip("127.0.0.1")]).is_err());
        assert!(p.decide("localhost", 8091, &[ip("::1")]).is_err());
        assert!(p.decide("10.1.2.3", 80, &[ip("10.1.2.3")]).is_ok());
        for bad in [
            "192.168.1.1",
            "172.16.0.1",
            "100.64.0.1",
            "169.254.1.1",
            "0.0.0.0",
            "fe80::1",
            "fd12::1",
            "::ffff:127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            // IPv4-compatible and 6to4 forms of private, loopback and metadata addresses.
            "::c0a8:101",
            "::7f00:1",
            "2002:c0a8:101::1",
            "2002:a9fe:a9fe::",
            "2002:7f00:1::",
        ] {
            assert!(p.decide(bad, 80, &[ip(bad)]).is_err(), "{bad}");
        }
        // IPv6 rules: a 6to4 network holds 6to4 addresses; an IPv4-carrying network of a
        // shorter prefix is matched as IPv6 only (no underflow, no IPv4-wide match).
        let v6 = HostPolicy::new(parse_rules("[2002::/16],[2002:a00:1::/48]").unwrap());
        assert!(v6.decide("x.test", 80, &[ip("2002:a00:1::5")]).is_ok());
        assert!(v6.decide("x.test", 80, &[ip("10.0.0.1")]).is_err());
        assert!(v6.decide("x.test", 80, &[ip("10.0.0.2")]).is_err());
        let mapped = HostPolicy::new(parse_rules("[::ffff:10.0.0.1]").unwrap());
        assert!(mapped.decide("x.test", 80, &[ip("10.0.0.1")]).is_ok());
        // A 6to4 address of a public IPv4 address stays public; `::1` stays loopback.
        assert!(p.decide("x.test", 80, &[ip("2002:5db8:d70e::1")]).is_ok());
        assert_eq!(special_kind(ip("::1")), Some("loopback"));
        assert!(p.decide("example.com", 443, &[ip("93.184.215.14")]).is_ok());
        // A name that resolves to a public and a private address is blocked.
        assert!(p
            .decide("x.test", 80, &[ip("93.184.215.14"), ip("192.168.0.2")])
            .is_err());
    }

    #[test]
    fn never_beats_allow() {
        let mut p = HostPolicy::new(parse_rules("127.0.0.0/8,169.254.0.0/16").unwrap());
        p.never(
            HostRule::exact("127.0.0.1:8080".parse().unwrap()),
            "the coordinator",
        );
        let e = p.decide("127.0.0.1", 8080, &[ip("127.0.0.1")]).unwrap_err();
        assert!(e.contains("the coordinator"), "{e}");
        // Other spellings of a local address reach a service bound to 0.0.0.0 too.
        assert!(p.decide("127.0.0.2", 8080, &[ip("127.0.0.2")]).is_err());
        assert!(p.decide("0.0.0.0", 8080, &[ip("0.0.0.0")]).is_err());
        assert!(p.decide("127.0.0.1", 8081, &[ip("127.0.0.1")]).is_ok());
        let e = p
            .decide("169.254.169.254", 80, &[ip("169.254.169.254")])
            .unwrap_err();
        assert!(e.contains("metadata"), "{e}");
    }

    #[tokio::test]
    async fn urls_are_checked_by_scheme_and_address() {
        let mut p = HostPolicy::new(parse_rules("127.0.0.1:8090").unwrap());
        p.never_url("http://127.0.0.1:8333", 80, "the object store")
            .await;
        assert!(p.check_url("http://127.0.0.1:8090/x").await.is_ok());
        assert!(p.check_url("http://127.0.0.1:8333/b").await.is_err());
        assert!(p.check_url("file:///etc/passwd").await.is_err());
        assert!(p.check_url("chrome://version").await.is_err());
        assert!(p.check_url("data:text/plain,x").await.is_ok());
        assert!(p.check_url("http://[::1]:8090/").await.is_err());
    }

    #[tokio::test]
    async fn what_cannot_be_resolved_is_refused() {
        let p = HostPolicy::new(Vec::new()).with_resolver(Resolver::custom(|h, _| {
            Box::pin(async move {
                match h.as_str() {
                    "empty.test" => Ok(Vec::new()),
                    _ => Err(std::io::Error::other("SERVFAIL")),
                }
            })
        }));
        for url in [
            "http://down.test/",
            "https://empty.test/",
            "ws://down.test:81/",
        ] {
            let e = p.check_url(url).await.unwrap_err();
            assert!(e.contains("could not be resolved"), "{url}: {e}");
        }
        assert!(p.decide("x.test", 80, &[]).is_err());
        assert_eq!(
            p.admit("93.184.215.14", 443).await,
            Ok(vec![ip("93.184.215.14")])
        );
    }

    #[tokio::test]
    async fn other_ports_of_a_service_are_never_reachable() {
        let mut p = HostPolicy::new(parse_rules("127.0.0.1").unwrap());
        p.never_ports("http://127.0.0.1:8333", &[8888, 9333], "the object store")
            .await;
        for port in [8888, 9333] {
            let e = p.decide("127.0.0.1", port, &[ip("127.0.0.1")]).unwrap_err();
            assert!(e.contains("the object store"), "{e}");
        }
        assert!(p.decide("127.0.0.1", 8090, &[ip("127.0.0.1")]).is_ok());
    }
}
