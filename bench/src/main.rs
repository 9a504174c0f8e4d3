//! `dispatch-bench`: measures the orchestrator alone. Coordinators run as real child
//! processes (this same binary, `coordinator` subcommand) against the shared PostgreSQL and
//! NATS, each phase on a private database (`argus_bench_<rand>`), NATS prefix and S3 bucket,
//! all removed afterwards ([`farm`]). Devices are simulated in this process ([`sim`]): each
//! simulated worker heartbeats over HTTP like a real one, pulls its assignments in batches,
//! acks them and answers every run at once with `run_started` and `run_finished` events.
//!
//! Phases:
//! - **memory**: coordinator RSS with 0 and with 1,000 registered idle device slots;
//! - **dispatch**: a preloaded queue drained by 1 / 100 / 1,000 / 10,000 devices with 1 and
//!   2 coordinators ([`dispatch`]); jobs/s over a fixed window, then the rest drained and
//!   every run checked (succeeded exactly once, never handed out twice);
//! - **latency**: 500 jobs/s submitted over HTTP to 1,000 idle devices ([`latency`]);
//! - **idle**: the coordinators' CPU while 1,000 and 10,000 devices only heartbeat
//!   ([`idle`]).
//!
//! `--latency-only`, `--dispatch-only <devices>` and `--idle-only <devices>` run one phase
//! (with `--coordinators` counts) and print its rows.
//!
//! It also prints the `EXPLAIN` of the claim's per-class candidate query and checks that it
//! walks the `runs_queued` index with no Sort. The last lines are machine-readable: the
//! headline, and `done_when=` with each target of issue 25's dispatch item.

mod dispatch;
mod farm;
mod floor;
mod idle;
mod latency;
mod procfs;
mod report;
mod sim;

use anyhow::Context;
use argus_coordinator::CoordinatorConfig;
use clap::{Parser, Subcommand, ValueEnum};

use crate::farm::{drop_bucket, env, with_farm};
use crate::latency::{latency_phase, LatencyRun, OFFERED_JOBS_PER_S};

/// Dispatch benchmark of the Argus orchestrator with simulated devices.
#[derive(Parser)]
#[command(name = "dispatch-bench")]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    /// Length of each dispatch measuring window, s (after 1 s of warm-up). Default 5.
    #[arg(long, default_value_t = 5.0)]
    window_s: f64,
    /// Length of the 500 jobs/s latency run, s (`--latency-s`). Default 6.
    #[arg(long, default_value_t = 6.0)]
    latency_s: f64,
    /// Warm-up before the latency window, s, at the same rate and not measured (0: measure
    /// from a cold start). Default 1.
    #[arg(long, default_value_t = 1.0)]
    warmup_s: f64,
    /// Length of the quiet window over which idle coordinator CPU is read, s. Default 10.
    #[arg(long, default_value_t = 10.0)]
    idle_s: f64,
    /// Run only the latency phase (1 and 2 coordinators, or `--coordinators`) and print its
    /// rows; no table headline. For looking at submit→start alone.
    #[arg(long)]
    latency_only: bool,
    /// Run only the idle-CPU phase with these device counts (comma-separated), 1 coordinator
    /// (or `--coordinators`); prints one row each.
    #[arg(long, value_delimiter = ',')]
    idle_only: Vec<usize>,
    /// Run only the dispatch phase, with these device counts (comma-separated) and
    /// `--coordinators`; prints one row each. For iterating on the dispatcher.
    #[arg(long, value_delimiter = ',')]
    dispatch_only: Vec<usize>,
    /// Run only the floors ([`floor`]): PostgreSQL's CPU per job for the rows a job writes
    /// and nothing else, and JetStream's for the messages a job sends and nothing else, each
    /// over `--window-s`; prints one row each and what they leave for the rest, then the
    /// wire floor with one event a message (how workers sent events before) to compare.
    #[arg(long)]
    floor: bool,
    /// Runs a claim and an applied batch of `--floor`'s database floor. Default 256 (the
    /// dispatcher's and the applier's most).
    #[arg(long, default_value_t = floor::BATCH)]
    floor_batch: i64,
    /// Coordinator counts for `--dispatch-only`, `--idle-only` (default 1) and
    /// `--latency-only` (default 1,2), comma-separated.
    #[arg(long, value_delimiter = ',')]
    coordinators: Vec<usize>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Internal: run one coordinator (the bench starts these as child processes).
    #[command(hide = true)]
    Coordinator {
        #[command(flatten)]
        cfg: Box<CoordinatorConfig>,
    },
}

/// Which phases a run has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    All,
    Latency,
    Dispatch,
    Idle,
    Floor,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    if let Some(Cmd::Coordinator { cfg }) = cli.cmd {
        tracing_subscriber::fmt()
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_default_env()
                    .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
            )
            .with_writer(std::io::stderr)
            .init();
        return rt.block_on(argus_coordinator::run(*cfg));
    }
    let lat = LatencyRun {
        secs: cli.latency_s,
        warmup_s: cli.warmup_s,
    };
    let mode = if cli.floor {
        Mode::Floor
    } else if cli.latency_only {
        Mode::Latency
    } else if !cli.dispatch_only.is_empty() {
        Mode::Dispatch
    } else if !cli.idle_only.is_empty() {
        Mode::Idle
    } else {
        Mode::All
    };
    let coordinators = |default: &[usize]| {
        if cli.coordinators.is_empty() {
            default.to_vec()
        } else {
            cli.coordinators.clone()
        }
    };
    rt.block_on(async {
        let env = env().await?;
        let result = match mode {
            Mode::Latency => latency_only(&env, lat, &coordinators(&[1, 2])).await,
            Mode::Dispatch => {
                dispatch_only(&env, &cli.dispatch_only, &coordinators(&[1]), cli.window_s).await
            }
            Mode::Idle => idle_only(&env, &cli.idle_only, &coordinators(&[1]), cli.idle_s).await,
            Mode::Floor => floors(&env, cli.window_s, cli.floor_batch).await,
            Mode::All => {
                let settings = report::Settings {
                    window_s: cli.window_s,
                    latency: lat,
                    idle_s: cli.idle_s,
                };
                report::bench(&env, settings).await
            }
        };
        drop_bucket(&env).await;
        result
    })
}

/// `--latency-only`: the latency phase with each coordinator count.
async fn latency_only(
    env: &farm::Env,
    run: LatencyRun,
    coordinators: &[usize],
) -> anyhow::Result<()> {
    for &coords in coordinators {
        let r = with_farm(env, coords, move |f| latency_phase(f, run)).await?;
        println!(
            "latency @{OFFERED_JOBS_PER_S}/s offered devices=1000 coordinators={coords}: \
             started {:.0}/s p50 {:.2} ms p99 {:.2} ms lost {} load {}",
            r.started_per_s,
            r.p50_ms,
            r.p99_ms,
            r.outcome.lost,
            procfs::loadavg()
        );
    }
    Ok(())
}

/// `--idle-only`: the coordinators' CPU while each device count only heartbeats.
async fn idle_only(
    env: &farm::Env,
    devices: &[usize],
    coordinators: &[usize],
    idle_s: f64,
) -> anyhow::Result<()> {
    for &coords in coordinators {
        for &n in devices {
            let pct = with_farm(env, coords, move |f| idle::idle_cpu_phase(f, n, idle_s)).await?;
            println!(
                "idle devices={n} coordinators={coords}: {pct:.1}% of a core load {}",
                procfs::loadavg()
            );
        }
    }
    Ok(())
}

/// `--dispatch-only`: the dispatch phase for each device and coordinator count.
async fn dispatch_only(
    env: &farm::Env,
    devices: &[usize],
    coordinators: &[usize],
    window_s: f64,
) -> anyhow::Result<()> {
    for &coords in coordinators {
        for &n in devices {
            let r = with_farm(env, coords, move |f| {
                dispatch::dispatch_phase(f, n, window_s, false)
            })
            .await?;
            println!(
                "dispatch devices={n} coordinators={coords}: {:.0} jobs/s {:.0} events/s \
                 lost {} handed twice {} retried {} of {} load {}",
                r.jobs_per_s,
                r.events_per_s,
                r.outcome.lost,
                r.outcome.duplicates,
                r.outcome.retried,
                r.outcome.jobs,
                procfs::loadavg()
            );
            let [pg, nats, coord, sim] = r.cpu_us;
            println!(
                "  CPU per job: postgres {pg:.0} us, nats-server {nats:.0} us, coordinators \
                 {coord:.0} us, simulated devices {sim:.0} us; {:.0} us in all",
                pg + nats + coord + sim
            );
        }
    }
    Ok(())
}

/// `--floor`: the database floor (`batch` runs a batch) and the wire floor on one farm (one
/// idle coordinator, which makes the schema and owns nothing the floors touch), and the most
/// jobs/s two cores allow with both paid and nothing else; then the wire floor with one
/// event a message ([`floor::Events::OnePerMessage`]) to compare.
async fn floors(env: &farm::Env, window_s: f64, batch: i64) -> anyhow::Result<()> {
    let (db, wire, single) = with_farm(env, 1, move |f| async move {
        let db = floor::db_floor(&f, window_s, batch).await?;
        let wire = floor::wire_floor(&f, window_s, floor::Events::Grouped).await?;
        let single = floor::wire_floor(&f, window_s, floor::Events::OnePerMessage).await?;
        Ok((db, wire, single))
    })
    .await?;
    let mut total = 0.0;
    for (name, fl) in [("database", &db), ("wire", &wire)] {
        let parts: Vec<String> = fl
            .cpu_us
            .iter()
            .map(|(p, us)| format!("{p} {us:.0} us"))
            .collect();
        total += fl.cpu_us.iter().map(|(_, us)| us).sum::<f64>();
        println!(
            "floor {name}: {:.0} jobs/s, CPU per job: {} load {}",
            fl.jobs_per_s,
            parts.join(", "),
            procfs::loadavg()
        );
    }
    println!(
        "floor both: {total:.0} us of CPU per job before any claim logic, HTTP heartbeat or \
         coordinator database work (the wire floor's clients: publishing, the simulated \
         workers' answers, fetching events): at most {:.0} jobs/s on 2 cores",
        2e6 / total
    );
    let parts: Vec<String> = single
        .cpu_us
        .iter()
        .map(|(p, us)| format!("{p} {us:.0} us"))
        .collect();
    let wire_us: f64 = wire.cpu_us.iter().map(|(_, us)| us).sum();
    let single_us: f64 = single.cpu_us.iter().map(|(_, us)| us).sum();
    println!(
        "floor wire, one event a message (the workers before their events were grouped): \
         {:.0} jobs/s, CPU per job: {} ({:+.0} us against grouped) load {}",
        single.jobs_per_s,
        parts.join(", "),
        single_us - wire_us,
        procfs::loadavg()
    );
    Ok(())
}
