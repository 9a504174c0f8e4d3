#!/usr/bin/env python3
"""MiniWoB++ harness for Argus (FOR MEASURING ONLY; never run in CI). Started by bench/miniwob.sh.

1. Serves a patched copy of PyPI `miniwob==1.1.0`'s `miniwob/html/` on loopback:
   `core.EPISODE_MAX_TIME` lifted, `Math.seedrandom(seed)` at the top of
   `core.startEpisodeReal`, a `navigator.sendBeacon` to this server at the top of
   `core.endEpisode` (the first reward of an episode: the page's own raw reward, read
   independently of any agent), and `?argus_seed=S&argus_ep=E` starting the episode on load
   with the human display removed, exactly as BrowserGym's MiniWoB task prepares its page.
2. Reads each episode's utterance by loading the page once itself (Playwright on Debian's
   Chromium): `core.getUtterance()` after the seeded start, as BrowserGym reads its goal.
   The JS seed of (task, seed N) is BrowserGym's: `np.random.RandomState(N).randint(0, 1e6)`,
   so Argus and the peer get the very same episode.
3. Argus: one suite (a job per episode: `llm` mode, instruction = the utterance, start URL =
   the seeded episode page) through the farm the script started; `argus suite run` prints the
   verdict and writes the JUnit. Per episode: steps, model calls and tokens from the run's
   actions (`GET /api/v1/runs/{id}`), seconds from the run's start to its end, success from
   the beacon (raw reward > 0), never from the agent's `finish`.
4. The peer (peer.py): BrowserGym's GenericAgent, same endpoint, tasks and seeds.
"""
import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import datetime
from statistics import median

HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    print(f"[miniwob] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the served copy


def prepare_www(dst, src=None):
    """A patched copy of miniwob's html/ folder at dst (src: that folder; default: the
    installed `miniwob` package's). bench/paraphrase serves its form pages from one too."""
    if src is None:
        import miniwob

        src = os.path.join(os.path.dirname(miniwob.__file__), "html")
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    core = os.path.join(dst, "core", "core.js")
    with open(core, encoding="utf-8") as f:
        js = f.read()
    edits = [
        ("core.EPISODE_MAX_TIME = 10000;", "core.EPISODE_MAX_TIME = 1000000; // lifted by bench/miniwob"),
        (
            "core.startEpisodeReal = function () {\n",
            "core.startEpisodeReal = function () {\n"
            "  if (core.ARGUS_SEED !== null && core.ARGUS_SEED !== undefined) { Math.seedrandom(core.ARGUS_SEED); }\n",
        ),
        (
            "core.endEpisode = function(reward, time_proportional, reason) {\n",
            "core.endEpisode = function(reward, time_proportional, reason) {\n"
            "  if (core.EP_TIMER !== null && core.argusBeacon) { core.argusBeacon(reward, reason); }\n",
        ),
    ]
    for old, new in edits:
        if js.count(old) != 1:
            raise SystemExit(f"core.js of this miniwob release lacks the anchor {old!r}")
        js = js.replace(old, new)
    with open(os.path.join(HERE, "core_patch.js"), encoding="utf-8") as f:
        js += "\n" + f.read()
    with open(core, "w", encoding="utf-8") as f:
        f.write(js)
    return dst


class Rewards:
    """First beacon per episode, and which peer episode is current (its page has no ep)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.by_ep = {}
        self.current_peer_ep = None

    def record(self, body):
        ep = body.get("ep") or self.current_peer_ep
        if not ep:
            return
        with self.lock:
            if ep not in self.by_ep:
                body["at"] = time.time()
                self.by_ep[ep] = body

    def get(self, ep):
        with self.lock:
            return self.by_ep.get(ep)


def serve(www, rewards, port=0):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=www, **kw)

        def log_message(self, *a):
            pass

        def end_headers(self):
            self.send_header("Cache-Control", "no-store")
            super().end_headers()

        def do_POST(self):
            if self.path != "/bench/reward":
                self.send_error(404)
                return
            n = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(n) or b"{}")
                if isinstance(body, dict):
                    rewards.record(body)
            except ValueError:
                pass
            self.send_response(204)
            self.end_headers()

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


# ---------------------------------------------------------------- episodes


def js_seed(seed):
    import numpy as np

    return int(np.random.RandomState(seed).randint(0, 1000000))


def probe_utterances(base, episodes, chromium):
    """Loads each seeded episode once (no ep → no beacon) and reads core.getUtterance()."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        page = browser.new_page()
        for ep in episodes:
            page.goto(f"{base}/miniwob/{ep['task']}.html?argus_seed={ep['js_seed']}")
            page.wait_for_function("() => window.ARGUS_STARTED === true && WOB_TASK_READY")
            u = page.evaluate("() => core.getUtterance()")
            ep["utterance"] = u["utterance"] if isinstance(u, dict) else u
        browser.close()


def http_json(method, url, token, body=None):
    req = urllib.request.Request(url, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, data, timeout=30) as r:
        return json.loads(r.read() or b"null")


def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() if s else None


def run_argus(args, base, episodes, rewards):
    jobs = []
    for ep in episodes:
        jobs.append(
            {
                "platform": "web",
                "mode": "llm",
                # Measures the model agent against its peer: no learned replay between episodes.
                "cache": "off",
                "name": ep["id"],
                "instruction": ep["utterance"],
                "start_url": f"{base}/miniwob/{ep['task']}.html?argus_seed={ep['js_seed']}&argus_ep={ep['id']}",
                "max_steps": args.max_steps,
                "timeout_s": args.episode_timeout_s,
                # The episodes of a suite queue on the one bench device: each may wait for
                # all before it (the default 900 s ended most of a 60-episode suite unrun).
                "queue_timeout_s": (len(episodes) + 1) * args.episode_timeout_s,
            }
        )
    suite = {"name": f"miniwob {args.tag}", "jobs": jobs, "matrix": [{"labels": {"bench": args.tag}}]}
    label = episodes[0]["task"] if len({e["task"] for e in episodes}) == 1 else "all"
    path = os.path.join(args.out, f"suite-{label}.json")
    with open(path, "w") as f:
        json.dump(suite, f, indent=1)
    log(f"argus: suite of {len(jobs)} episodes through the farm ({args.server})")
    t0 = time.time()
    p = subprocess.run(
        [args.argus, "suite", "run", path, "--server", args.server, "--junit", os.path.join(args.out, f"junit-{label}.xml")],
        capture_output=True,
        text=True,
    )
    wall = time.time() - t0
    with open(os.path.join(args.out, f"suite-run-{label}.txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    sys.stderr.write(p.stdout + p.stderr)
    suite_id = next((line.split()[1].rstrip(":") for line in p.stdout.splitlines() if line.startswith("suite ")), None)
    if not suite_id:
        raise SystemExit("argus suite run did not start the suite (see suite-run.txt)")
    s = http_json("GET", f"{args.server}/api/v1/suites/{suite_id}", args.token)
    by_name = {j.get("name"): j for j in s.get("jobs", [])}
    rows = []
    for ep in episodes:
        j = by_name.get(ep["id"], {})
        run_id = (j.get("runs") or [None])[-1]
        run = http_json("GET", f"{args.server}/api/v1/runs/{run_id}", args.token) if run_id else {}
        with open(os.path.join(args.out, f"argus-run-{ep['id']}.json"), "w") as f:
            json.dump(run, f, indent=1)
        rows.append(argus_row(ep, run, run_id, rewards))
    return rows, wall, suite_id


def argus_actions(run):
    return [a for st in run.get("steps", []) for a in st.get("actions", [])]


# Not counted as steps: planning, the model's finish/fail, the popup policy, and the job's
# own opening of its start URL (step 0).
NOT_STEPS = {"plan", "finish", "fail", "popup"}


def argus_row(ep, run, run_id, rewards):
    acts = argus_actions(run)
    calls = prompt = cached = completion = 0
    model_ms = 0.0
    steps = 0
    # Per action record that called the model: (kind, ms per call, prompt tokens per call,
    # prompt tokens the server had cached per call, completion tokens per call).
    per_call = []
    for a in acts:
        u = a.get("usage") or {}
        if u.get("calls", 0) > 0:
            n = u["calls"]
            per_call.append([a.get("kind"), u.get("latency_ms", 0.0) / n, u.get("prompt_tokens", 0) / n,
                             u.get("cached_tokens", 0) / n, u.get("completion_tokens", 0) / n])
        calls += u.get("calls", 0)
        prompt += u.get("prompt_tokens", 0)
        cached += u.get("cached_tokens", 0)
        completion += u.get("completion_tokens", 0)
        model_ms += u.get("latency_ms", 0.0)
        if a.get("kind") not in NOT_STEPS and not (a.get("kind") == "open" and a.get("step") == 0):
            steps += 1
    t_start, t_end = ts(run.get("started_at")), ts(run.get("finished_at"))
    secs = (t_end - t_start) if (t_start and t_end) else None
    r = rewards.get(ep["id"])
    return {
        "agent": "argus",
        "episode": ep["id"],
        "task": ep["task"],
        "seed": ep["seed"],
        "run_id": run_id,
        "status": run.get("status"),
        "error": run.get("error") or run.get("failure") or run.get("message"),
        # What decided the status (the run's Verdict), and the checks it rested on.
        "verdict_basis": (run.get("verdict") or {}).get("basis"),
        "expectations": len(run.get("expectations") or []),
        "raw_reward": None if r is None else r.get("raw"),
        "success": bool(r and (r.get("raw") or 0) > 0),
        "steps": steps,
        "model_calls": calls,
        "prompt_tokens": prompt,
        "cached_tokens": cached,
        "completion_tokens": completion,
        "model_s": model_ms / 1000.0,
        "per_call": per_call,
        "seconds": secs,
    }


# ---------------------------------------------------------------- table


def fmt_table(rows):
    head = ["agent", "episode", "ok", "reward", "steps", "calls", "prompt", "cached", "compl", "model_s", "secs", "status"]
    lines = ["  ".join(f"{h:>8}" if i > 1 else f"{h:<28}" if i == 1 else f"{h:<6}" for i, h in enumerate(head))]
    for r in rows:
        rew = "-" if r["raw_reward"] is None else f"{r['raw_reward']:.2f}"
        secs = "-" if r["seconds"] is None else f"{r['seconds']:.1f}"
        vals = [
            r["agent"],
            r["episode"],
            "1" if r["success"] else "0",
            rew,
            str(r["steps"]),
            str(r["model_calls"]),
            str(r["prompt_tokens"]),
            str(r["cached_tokens"]),
            str(r["completion_tokens"]),
            f"{r['model_s']:.1f}",
            secs,
            str(r.get("status") or ""),
        ]
        lines.append("  ".join(f"{v:>8}" if i > 1 else f"{v:<28}" if i == 1 else f"{v:<6}" for i, v in enumerate(vals)))
    return "\n".join(lines)


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    if len(sys.argv) == 3 and sys.argv[1] == "--retable":
        retable(sys.argv[2])
        return
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--model-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--no-argus", action="store_true")
    ap.add_argument("--max-steps", type=int, default=10)
    ap.add_argument("--episode-timeout-s", type=int, default=300)
    ap.add_argument("--peer-max-new-tokens", type=int, default=512)
    ap.add_argument("--out", required=True)
    ap.add_argument("--argus", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--tag", required=True)
    ap.add_argument("--chromium", default="/usr/lib/chromium/chromium")
    # The worker's navigation policy allows only this port on loopback (bench/miniwob.sh).
    ap.add_argument("--www-port", type=int, default=0)
    # Keeps the rows already in OUT/rows.jsonl and runs only the episodes missing there.
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()
    args.token = os.environ.get("ARGUS_API_TOKEN", "")
    os.makedirs(args.out, exist_ok=True)

    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    rewards = Rewards()
    www = prepare_www(os.path.join(args.out, "www"))
    srv = serve(www, rewards, args.www_port)
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    log(f"serving the patched MiniWoB++ copy at {base}/miniwob/")
    missing = [t for t in tasks if not os.path.exists(os.path.join(www, "miniwob", f"{t}.html"))]
    if missing:
        raise SystemExit(f"no such MiniWoB++ task: {', '.join(missing)}")
    episodes = [
        {"id": f"{t}-s{s}", "task": t, "seed": s, "js_seed": js_seed(s)} for t in tasks for s in range(args.seeds)
    ]
    probe_utterances(base, episodes, args.chromium)
    for ep in episodes:
        log(f"{ep['id']}: {ep['utterance']!r}")

    # Task by task, Argus's suite then the peer on the same episodes: a run cut short (or
    # resumed with --resume) still compares the two on the same tasks. Each row is appended
    # to rows.jsonl as soon as it is known.
    rows_path = os.path.join(args.out, "rows.jsonl")
    settings_path = os.path.join(args.out, "settings.json")
    settings = settings_of(args)
    if args.resume and os.path.exists(settings_path):
        with open(settings_path) as f:
            before = json.load(f)
        differ = {k: (before.get(k), v) for k, v in settings.items() if before.get(k) != v}
        if differ:
            raise SystemExit(f"--resume: this run's settings differ from the run in {args.out}: {differ}")
    with open(settings_path, "w") as f:
        json.dump(settings, f, indent=1)
    ids = {ep["id"] for ep in episodes}
    rows = [r for r in load_rows(rows_path) if r["episode"] in ids and finished(r)] if args.resume else []
    done = {(r["agent"], r["episode"]) for r in rows}
    # rows.jsonl is rewritten with what is kept; results.json of an earlier run is stale.
    with open(rows_path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    if os.path.exists(os.path.join(args.out, "results.json")):
        os.remove(os.path.join(args.out, "results.json"))
    if not args.no_peer:
        sys.path.insert(0, HERE)
        import peer
    for task in tasks:
        task_eps = [ep for ep in episodes if ep["task"] == task]
        todo = [ep for ep in task_eps if ("argus", ep["id"]) not in done]
        if not args.no_argus and todo:
            argus_rows, _, suite_id = run_argus(args, base, todo, rewards)
            append_rows(rows_path, argus_rows)
            rows += argus_rows
            log(f"argus suite {suite_id} ({task}) done")
        todo = [ep for ep in task_eps if ("peer", ep["id"]) not in done]
        if not args.no_peer and todo:
            peer_rows = peer.run_episodes(args, base, todo, rewards, log)
            append_rows(rows_path, peer_rows)
            rows += peer_rows
    order = {ep["id"]: i for i, ep in enumerate(episodes)}
    rows.sort(key=lambda r: (r["agent"] != "argus", order.get(r["episode"], 1 << 30)))
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"episodes": episodes, "rows": rows}, f, indent=1)
    report(rows, episodes)
    srv.shutdown()


def append_rows(path, rows):
    with open(path, "a", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def load_rows(path):
    """The rows of rows.jsonl; a line cut by a killed run is skipped."""
    if not os.path.exists(path):
        return []
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
    return rows


def finished(row):
    """A row --resume keeps: an Argus run that ended on its own, or any peer episode."""
    if row["agent"] != "argus":
        return True
    return bool(row.get("run_id")) and row.get("status") in ("succeeded", "unverified", "failed", "timed_out", "errored")


def settings_of(args):
    """What a resumed run must share with the run it continues."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()
    except OSError:
        commit = ""
    return {
        "commit": commit,
        "model_url": args.model_url,
        "model": args.model,
        "max_steps": args.max_steps,
        "episode_timeout_s": args.episode_timeout_s,
        "peer_max_new_tokens": args.peer_max_new_tokens,
    }


def retable(out):
    """Re-prints a run's table from its files (argus rows recomputed from the saved run JSON,
    with the rewards the beacon recorded then; as recorded where that JSON is not there); a
    run cut short is read from rows.jsonl."""
    path = os.path.join(out, "results.json")
    if not os.path.exists(os.path.join(out, "rows.jsonl")):
        with open(path) as f:
            res = json.load(f)
    else:
        rows = load_rows(os.path.join(out, "rows.jsonl"))
        eps = {}
        for r in rows:
            eps.setdefault(r["episode"], {"id": r["episode"], "task": r["task"], "seed": r["seed"]})
        res = {"episodes": list(eps.values()), "rows": rows}
    rows = []
    for r in res["rows"]:
        if r["agent"] == "argus":
            ep = next(e for e in res["episodes"] if e["id"] == r["episode"])
            run_path = os.path.join(out, f"argus-run-{ep['id']}.json")
            if not os.path.exists(run_path):
                # A row carried over from another machine (--resume of a committed rows.jsonl):
                # its run JSON stayed there; the row is shown as recorded.
                rows.append(r)
                continue
            with open(run_path) as f:
                run = json.load(f)
            rw = Rewards()
            if r["raw_reward"] is not None:
                rw.record({"ep": ep["id"], "raw": r["raw_reward"]})
            r = argus_row(ep, run, r["run_id"], rw)
        rows.append(r)
    report(rows, res["episodes"])


# ---------------------------------------------------------------- verdict × reward

VERDICTS = ("succeeded", "unverified", "failed", "errored", "timed_out", "other")
PEER_ENDS = ("done", "no action", "timed_out", "errored", "other")
REWARDS = ("success", "failure", "no score")


def verdict_of(row):
    """Argus: the run's status (its verdict). The peer has no verdict of its own: how its
    episode ended (done = the environment ended it; no action = the agent gave up)."""
    s = row.get("status") or ""
    if row["agent"] == "argus":
        return s if s in VERDICTS else "other"
    if s == "done":
        return "done"
    if s == "the agent returned no action":
        return "no action"
    if s.startswith("episode timeout"):
        return "timed_out"
    if ":" in s:  # "ExceptionType: message"
        return "errored"
    return "other"


def reward_of(row):
    """The page's own word: success (raw reward > 0), failure (≤ 0), no score (never reported)."""
    raw = row.get("raw_reward")
    if raw is None:
        return "no score"
    return "success" if raw > 0 else "failure"


def verdict_table(rows, agent):
    """Counts of verdict (rows) × the page's reward (columns), with totals."""
    rs = [r for r in rows if r["agent"] == agent]
    kinds = VERDICTS if agent == "argus" else PEER_ENDS
    n = {(v, w): 0 for v in kinds for w in REWARDS}
    for r in rs:
        n[(verdict_of(r), reward_of(r))] += 1
    title = "argus verdict" if agent == "argus" else "peer ended"
    head = f"{title:<16}" + "".join(f"{w:>10}" for w in REWARDS) + f"{'total':>8}"
    lines = [f"# {agent}: {title} × page reward (success: raw reward > 0; failure: ≤ 0; no score: the page never reported)", head]
    for v in kinds:
        cells = [n[(v, w)] for w in REWARDS]
        lines.append(f"{v:<16}" + "".join(f"{c:>10}" for c in cells) + f"{sum(cells):>8}")
    cols = [sum(n[(v, w)] for v in kinds) for w in REWARDS]
    lines.append(f"{'total':<16}" + "".join(f"{c:>10}" for c in cols) + f"{sum(cols):>8}")
    return "\n".join(lines)


def false_passes(rs):
    """(episodes ended `succeeded` whose page did not score a success, episodes ended `succeeded`)."""
    passed = [r for r in rs if r["agent"] == "argus" and r.get("status") == "succeeded"]
    return sum(1 for r in passed if reward_of(r) != "success"), len(passed)


def report(rows, episodes):
    for r in rows:
        if not r["success"]:
            where = f"run {r['run_id']}" if r.get("run_id") else "peer"
            print(f"# {r['agent']} {r['episode']} ({where}): reward {r['raw_reward']}; {r.get('status')}: {(r.get('error') or '')[:300]}")
    print(fmt_table(rows))
    for agent in ("argus", "peer"):
        if any(r["agent"] == agent for r in rows):
            print(verdict_table(rows, agent))
    a = [r for r in rows if r["agent"] == "argus"]
    p = [r for r in rows if r["agent"] == "peer"]
    if a and p:
        # Side by side: only the episodes both agents ran (a run cut short between them).
        both = {r["episode"] for r in a} & {r["episode"] for r in p}
        if len(both) < max(len(a), len(p)):
            print(f"# summary over the {len(both)} episodes both agents ran")
        a = [r for r in a if r["episode"] in both]
        p = [r for r in p if r["episode"] in both]
        episodes = [e for e in episodes if e["id"] in both]

    def rate(rs):
        return f"{sum(r['success'] for r in rs) / len(rs):.2f}" if rs else "na"

    def spe(rs):
        return f"{mean([r['seconds'] for r in rs]):.1f}" if rs else "na"

    tpe = f"{mean([r['prompt_tokens'] + r['completion_tokens'] for r in a]):.0f}" if a else "na"
    peer_tpe = f"{mean([r['prompt_tokens'] + r['completion_tokens'] for r in p]):.0f}" if p else "na"
    # Model calls of the acting turns (not the plan, not the run's one judge call, which is
    # reported on its own): seconds and prompt tokens per call, median over every such call
    # of every episode (rows from before this field: "na").
    calls = [c for r in a for c in (r.get("per_call") or [])]
    acting = [c for c in calls if c[0] not in ("plan", "judge")]
    call_s = f"{median([c[1] for c in acting]) / 1000.0:.1f}" if acting else "na"
    call_tok = f"{median([c[2] for c in acting]):.0f}" if acting else "na"
    # Of those prompt tokens, the ones the server computed (not from its prefix cache), and
    # the tokens the call wrote: the two costs of a call on a CPU-local model. Rows from
    # before these fields (three-element per_call): "na".
    full = [c for c in acting if len(c) >= 5]
    call_new = f"{median([c[2] - c[3] for c in full]):.0f}" if full else "na"
    call_out = f"{median([c[4] for c in full]):.0f}" if full else "na"
    judging = [c for c in calls if c[0] == "judge"]
    judge_s = f"{median([c[1] for c in judging]) / 1000.0:.1f}" if judging else "na"
    planning = [c for r in a for c in (r.get("per_call") or []) if c[0] == "plan"]
    plan_tok = f"{median([c[2] for c in planning]):.0f}" if planning else "na"
    fp, passed = false_passes(a)
    fpr = f"{fp / passed:.2f}" if passed else "na"
    counts = " ".join(f"{v}={sum(1 for r in a if verdict_of(r) == v)}" for v in VERDICTS)
    print(
        f"miniwob_success={rate(a)} peer_success={rate(p)} episodes={len(episodes)} "
        f"s_per_episode={spe(a)} peer_s_per_episode={spe(p)} tokens_per_episode={tpe} peer_tokens_per_episode={peer_tpe} "
        f"false_pass_rate={fpr} false_passes={fp} {counts} "
        f"model_s_per_action_call={call_s} prompt_tokens_per_action_call={call_tok} "
        f"uncached_prompt_tokens_per_action_call={call_new} completion_tokens_per_action_call={call_out} "
        f"prompt_tokens_per_plan_call={plan_tok} "
        f"model_s_per_judge_call={judge_s}"
    )


if __name__ == "__main__":
    main()
