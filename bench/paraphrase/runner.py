#!/usr/bin/env python3
"""Paraphrase set runner (FOR MEASURING ONLY; never run in CI). Started by bench/paraphrase.sh.

1. Serves, on one loopback port (the one the bench worker may visit):
   `/todomvc/…` the TodoMVC examples (npm todomvc@0.1.1, ARGUS_TODOMVC_DIR) and `/mw/…` a
   patched copy of PyPI miniwob 1.1.0's html/ (bench/miniwob/harness.py's patch: the page's
   episode starts on load, seeded, its own prompt removed). Every HTML page gets
   bench/paraphrase/probe.js first in <head>: it seeds the item's start state and beacons
   the page's state (the app's stored todo list; form fields and submissions) to
   POST /__pp/state. That is the ORACLE: it reads the page, never Argus.
2. Submits the chosen items (items.json, `--split`) as one suite of `llm` jobs (cache off)
   through the farm bench/paraphrase.sh started, waits for it (`argus suite run`).
3. Per item: Argus's run status, the oracle's verdict (right/wrong, and why), whether it is a
   false pass (Argus `succeeded`, the oracle says wrong); then
   `paraphrase_right=A/N false_pass=B split=…`. Rows land in OUT/rows.jsonl.

`runner.py --check-set [items.json]` checks the set itself (no services): the size, the
held-out rule (round 1: held_out by the hash rule over round-1 items; rounds 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49 and 50:
exactly 10 items each, all held_out_2 / held_out_3 / held_out_4 / held_out_5 / held_out_6 /
held_out_7 / held_out_8 / held_out_9 / held_out_10 / held_out_11 / held_out_12 / held_out_13 /
held_out_14 / held_out_15 / held_out_16 / held_out_17 / held_out_18 / held_out_19 / held_out_20 /
held_out_21 / held_out_22 / held_out_23 / held_out_24 / held_out_25 / held_out_26 / held_out_27 /
held_out_28 / held_out_29 / held_out_30 / held_out_31 / held_out_32 / held_out_33 / held_out_34 / held_out_35 / held_out_36 /
held_out_37 / held_out_38 / held_out_39 / held_out_40 / held_out_41 / held_out_42 / held_out_43 / held_out_44 /
held_out_45 / held_out_46 / held_out_47 / held_out_48 / held_out_49 / held_out_50; no intent in two rounds), the checkable-clause flags, and that no instruction copies wording from
tests/tests/e2e/.
`runner.py --retable OUT` re-prints a run's report from OUT/rows.jsonl.
"""
import argparse
import hashlib
import http.server
import json
import mimetypes
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "miniwob"))
import harness  # noqa: E402  (bench/miniwob/harness.py: prepare_www, http_json, ts, load_rows)

ITEMS = os.path.join(HERE, "items.json")
MINIWOB_SEED = 4242
HELD_OUT_SIZE = 10
ROUND2_SIZE = 10  # round 2: every item is held_out_2 (written unseen by the people tuning Argus)
ROUND2_SPLIT = "held_out_2"
ROUND3_SIZE = 10  # round 3: every item is held_out_3 (written after held_out and held_out_2 were looked at)
ROUND3_SPLIT = "held_out_3"
ROUND4_SIZE = 10  # round 4: every item is held_out_4 (written after held_out, held_out_2 and held_out_3 were looked at)
ROUND4_SPLIT = "held_out_4"
ROUND5_SIZE = 10  # round 5: every item is held_out_5 (written after held_out, held_out_2, held_out_3 and held_out_4 were looked at)
ROUND5_SPLIT = "held_out_5"
ROUND6_SIZE = 10  # round 6: every item is held_out_6 (written after held_out, held_out_2, held_out_3, held_out_4 and held_out_5 were looked at)
ROUND6_SPLIT = "held_out_6"
ROUND7_SIZE = 10  # round 7: every item is held_out_7 (written after held_out, held_out_2, ..., held_out_6 were looked at)
ROUND7_SPLIT = "held_out_7"
ROUND8_SIZE = 10  # round 8: every item is held_out_8 (written after held_out, held_out_2, ..., held_out_7 were looked at)
ROUND8_SPLIT = "held_out_8"
ROUND9_SIZE = 10  # round 9: every item is held_out_9 (written after held_out, held_out_2, ..., held_out_8 were looked at)
ROUND9_SPLIT = "held_out_9"
ROUND10_SIZE = 10  # round 10: every item is held_out_10 (written after held_out, held_out_2, ..., held_out_9 were looked at)
ROUND10_SPLIT = "held_out_10"
ROUND11_SIZE = 10  # round 11: every item is held_out_11 (written after held_out, held_out_2, ..., held_out_10 were looked at)
ROUND11_SPLIT = "held_out_11"
ROUND12_SIZE = 10  # round 12: every item is held_out_12 (written after held_out, held_out_2, ..., held_out_11 were looked at)
ROUND12_SPLIT = "held_out_12"
ROUND13_SIZE = 10  # round 13: every item is held_out_13 (written after held_out, held_out_2, ..., held_out_12 were looked at)
ROUND13_SPLIT = "held_out_13"
ROUND14_SIZE = 10  # round 14: every item is held_out_14 (written after held_out, held_out_2, ..., held_out_13 were looked at)
ROUND14_SPLIT = "held_out_14"
ROUND15_SIZE = 10  # round 15: every item is held_out_15 (written after held_out, held_out_2, ..., held_out_13 were looked at; held_out_14 not yet run)
ROUND15_SPLIT = "held_out_15"
ROUND16_SIZE = 10  # round 16: every item is held_out_16 (written after held_out, held_out_2, ..., held_out_15 were looked at)
ROUND16_SPLIT = "held_out_16"
ROUND17_SIZE = 10  # round 17: every item is held_out_17 (written after held_out, held_out_2, ..., held_out_16 were looked at)
ROUND17_SPLIT = "held_out_17"
ROUND18_SIZE = 10  # round 18: every item is held_out_18 (written after held_out, held_out_2, ..., held_out_17 were looked at)
ROUND18_SPLIT = "held_out_18"
ROUND19_SIZE = 10  # round 19: every item is held_out_19 (written after held_out, held_out_2, ..., held_out_18 were looked at)
ROUND19_SPLIT = "held_out_19"
ROUND20_SIZE = 10  # round 20: every item is held_out_20 (written after held_out, held_out_2, ..., held_out_19 were looked at)
ROUND20_SPLIT = "held_out_20"
ROUND21_SIZE = 10  # round 21: every item is held_out_21 (written blind after held_out, held_out_2, ..., held_out_20 were looked at)
ROUND21_SPLIT = "held_out_21"
ROUND22_SIZE = 10  # round 22: every item is held_out_22 (written blind with round 21, after held_out, held_out_2, ..., held_out_20 were looked at)
ROUND22_SPLIT = "held_out_22"
ROUND23_SIZE = 10  # round 23: every item is held_out_23 (written blind after held_out, held_out_2, ..., held_out_20 were looked at; held_out_21 and held_out_22 not yet run)
ROUND23_SPLIT = "held_out_23"
ROUND24_SIZE = 10  # round 24: every item is held_out_24 (written blind with round 23, after held_out, held_out_2, ..., held_out_20 were looked at; held_out_21 and held_out_22 not yet run)
ROUND24_SPLIT = "held_out_24"
ROUND25_SIZE = 10  # round 25: every item is held_out_25 (written blind after held_out, held_out_2, ..., held_out_24 were looked at)
ROUND25_SPLIT = "held_out_25"
ROUND26_SIZE = 10  # round 26: every item is held_out_26 (written blind after held_out, held_out_2, ..., held_out_25 were looked at)
ROUND26_SPLIT = "held_out_26"
ROUND27_SIZE = 10  # round 27: every item is held_out_27 (written blind after held_out, held_out_2, ..., held_out_26 were looked at)
ROUND27_SPLIT = "held_out_27"
ROUND28_SIZE = 10  # round 28: every item is held_out_28 (written blind with round 27, after held_out, held_out_2, ..., held_out_26 were looked at)
ROUND28_SPLIT = "held_out_28"
ROUND29_SIZE = 10  # round 29: every item is held_out_29 (written blind after held_out, held_out_2, ..., held_out_28 were looked at)
ROUND29_SPLIT = "held_out_29"
ROUND30_SIZE = 10  # round 30: every item is held_out_30 (written blind after held_out, held_out_2, ..., held_out_29 were looked at)
ROUND30_SPLIT = "held_out_30"
ROUND31_SIZE = 10  # round 31: every item is held_out_31 (written blind after held_out, held_out_2, ..., held_out_30 were looked at)
ROUND31_SPLIT = "held_out_31"
ROUND32_SIZE = 10  # round 32: every item is held_out_32 (written blind with round 31, after held_out, held_out_2, ..., held_out_30 were looked at)
ROUND32_SPLIT = "held_out_32"
ROUND33_SIZE = 10  # round 33: every item is held_out_33 (written blind after held_out, held_out_2, ..., held_out_30 and held_out_31 were looked at)
ROUND33_SPLIT = "held_out_33"
ROUND34_SIZE = 10  # round 34: every item is held_out_34 (written blind after held_out, held_out_2, ..., held_out_33 were looked at)
ROUND34_SPLIT = "held_out_34"
ROUND35_SIZE = 10  # round 35: every item is held_out_35 (written blind with round 34, after held_out, held_out_2, ..., held_out_33 were looked at)
ROUND35_SPLIT = "held_out_35"
ROUND36_SIZE = 10  # round 36: every item is held_out_36 (written blind after held_out, held_out_2, ..., held_out_35 were looked at)
ROUND36_SPLIT = "held_out_36"
ROUND37_SIZE = 10  # round 37: every item is held_out_37 (written blind after held_out, held_out_2, ..., held_out_36 were looked at)
ROUND37_SPLIT = "held_out_37"
ROUND38_SIZE = 10  # round 38: every item is held_out_38 (written blind with round 37, after held_out, held_out_2, ..., held_out_36 were looked at)
ROUND38_SPLIT = "held_out_38"
ROUND39_SIZE = 10  # round 39: every item is held_out_39 (written blind after held_out, held_out_2, ..., held_out_38 were looked at)
ROUND39_SPLIT = "held_out_39"
ROUND40_SIZE = 10  # round 40: every item is held_out_40 (written blind with round 39, after held_out, held_out_2, ..., held_out_38 were looked at)
ROUND40_SPLIT = "held_out_40"
ROUND41_SIZE = 10  # round 41: every item is held_out_41 (written blind after held_out, held_out_2, ..., held_out_40 were looked at)
ROUND41_SPLIT = "held_out_41"
ROUND42_SIZE = 10  # round 42: every item is held_out_42 (written blind with round 41, after held_out, held_out_2, ..., held_out_40 were looked at)
ROUND42_SPLIT = "held_out_42"
ROUND43_SIZE = 10  # round 43: every item is held_out_43 (written blind after held_out, held_out_2, ..., held_out_42 were looked at)
ROUND43_SPLIT = "held_out_43"
ROUND44_SIZE = 10  # round 44: every item is held_out_44 (written blind with round 43, after held_out, held_out_2, ..., held_out_42 were looked at)
ROUND44_SPLIT = "held_out_44"
ROUND45_SIZE = 10  # round 45: every item is held_out_45 (written blind after held_out, held_out_2, ..., held_out_44 were looked at)
ROUND45_SPLIT = "held_out_45"
ROUND46_SIZE = 10  # round 46: every item is held_out_46 (written blind with round 45, after held_out, held_out_2, ..., held_out_44 were looked at)
ROUND46_SPLIT = "held_out_46"
ROUND47_SIZE = 10  # round 47: every item is held_out_47 (written blind after held_out, held_out_2, ..., held_out_46 were looked at)
ROUND47_SPLIT = "held_out_47"
ROUND48_SIZE = 10  # round 48: every item is held_out_48 (written blind with round 47, after held_out, held_out_2, ..., held_out_46 were looked at)
ROUND48_SPLIT = "held_out_48"
ROUND49_SIZE = 10  # round 49: every item is held_out_49 (written blind after held_out, held_out_2, ..., held_out_48 were looked at)
ROUND49_SPLIT = "held_out_49"
ROUND50_SIZE = 10  # round 50: every item is held_out_50 (written blind with round 49, after held_out, held_out_2, ..., held_out_48 were looked at)
ROUND50_SPLIT = "held_out_50"
LATER_ROUNDS = {
    2: (ROUND2_SPLIT, ROUND2_SIZE),
    3: (ROUND3_SPLIT, ROUND3_SIZE),
    4: (ROUND4_SPLIT, ROUND4_SIZE),
    5: (ROUND5_SPLIT, ROUND5_SIZE),
    6: (ROUND6_SPLIT, ROUND6_SIZE),
    7: (ROUND7_SPLIT, ROUND7_SIZE),
    8: (ROUND8_SPLIT, ROUND8_SIZE),
    9: (ROUND9_SPLIT, ROUND9_SIZE),
    10: (ROUND10_SPLIT, ROUND10_SIZE),
    11: (ROUND11_SPLIT, ROUND11_SIZE),
    12: (ROUND12_SPLIT, ROUND12_SIZE),
    13: (ROUND13_SPLIT, ROUND13_SIZE),
    14: (ROUND14_SPLIT, ROUND14_SIZE),
    15: (ROUND15_SPLIT, ROUND15_SIZE),
    16: (ROUND16_SPLIT, ROUND16_SIZE),
    17: (ROUND17_SPLIT, ROUND17_SIZE),
    18: (ROUND18_SPLIT, ROUND18_SIZE),
    19: (ROUND19_SPLIT, ROUND19_SIZE),
    20: (ROUND20_SPLIT, ROUND20_SIZE),
    21: (ROUND21_SPLIT, ROUND21_SIZE),
    22: (ROUND22_SPLIT, ROUND22_SIZE),
    23: (ROUND23_SPLIT, ROUND23_SIZE),
    24: (ROUND24_SPLIT, ROUND24_SIZE),
    25: (ROUND25_SPLIT, ROUND25_SIZE),
    26: (ROUND26_SPLIT, ROUND26_SIZE),
    27: (ROUND27_SPLIT, ROUND27_SIZE),
    28: (ROUND28_SPLIT, ROUND28_SIZE),
    29: (ROUND29_SPLIT, ROUND29_SIZE),
    30: (ROUND30_SPLIT, ROUND30_SIZE),
    31: (ROUND31_SPLIT, ROUND31_SIZE),
    32: (ROUND32_SPLIT, ROUND32_SIZE),
    33: (ROUND33_SPLIT, ROUND33_SIZE),
    34: (ROUND34_SPLIT, ROUND34_SIZE),
    35: (ROUND35_SPLIT, ROUND35_SIZE),
    36: (ROUND36_SPLIT, ROUND36_SIZE),
    37: (ROUND37_SPLIT, ROUND37_SIZE),
    38: (ROUND38_SPLIT, ROUND38_SIZE),
    39: (ROUND39_SPLIT, ROUND39_SIZE),
    40: (ROUND40_SPLIT, ROUND40_SIZE),
    41: (ROUND41_SPLIT, ROUND41_SIZE),
    42: (ROUND42_SPLIT, ROUND42_SIZE),
    43: (ROUND43_SPLIT, ROUND43_SIZE),
    44: (ROUND44_SPLIT, ROUND44_SIZE),
    45: (ROUND45_SPLIT, ROUND45_SIZE),
    46: (ROUND46_SPLIT, ROUND46_SIZE),
    47: (ROUND47_SPLIT, ROUND47_SIZE),
    48: (ROUND48_SPLIT, ROUND48_SIZE),
    49: (ROUND49_SPLIT, ROUND49_SIZE),
    50: (ROUND50_SPLIT, ROUND50_SIZE),
}  # round → (split, size)
SPLITS = ("dev", "held_out", ROUND2_SPLIT, ROUND3_SPLIT, ROUND4_SPLIT, ROUND5_SPLIT, ROUND6_SPLIT, ROUND7_SPLIT, ROUND8_SPLIT, ROUND9_SPLIT, ROUND10_SPLIT, ROUND11_SPLIT, ROUND12_SPLIT, ROUND13_SPLIT, ROUND14_SPLIT, ROUND15_SPLIT, ROUND16_SPLIT, ROUND17_SPLIT, ROUND18_SPLIT, ROUND19_SPLIT, ROUND20_SPLIT, ROUND21_SPLIT, ROUND22_SPLIT, ROUND23_SPLIT, ROUND24_SPLIT, ROUND25_SPLIT, ROUND26_SPLIT, ROUND27_SPLIT, ROUND28_SPLIT, ROUND29_SPLIT, ROUND30_SPLIT, ROUND31_SPLIT, ROUND32_SPLIT, ROUND33_SPLIT, ROUND34_SPLIT, ROUND35_SPLIT, ROUND36_SPLIT, ROUND37_SPLIT, ROUND38_SPLIT, ROUND39_SPLIT, ROUND40_SPLIT, ROUND41_SPLIT, ROUND42_SPLIT, ROUND43_SPLIT, ROUND44_SPLIT, ROUND45_SPLIT, ROUND46_SPLIT, ROUND47_SPLIT, ROUND48_SPLIT, ROUND49_SPLIT, ROUND50_SPLIT, "all")
CHECK_CLAUSE = re.compile(r"\b(confirm|make sure|check that|double[- ]check|verify|ensure)\b|确认|检查|确保|核对", re.I)


def log(msg):
    print(f"[paraphrase] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the set


def load_set(path=ITEMS):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def round_of(it):
    """An item's round: 1 when it names none (round 1 predates the field)."""
    return it.get("round", 1)


def split_by_rule(data):
    """intent → 'held_out' | 'dev' | 'held_out_2' | 'held_out_3' | 'held_out_4' | 'held_out_5' |
    'held_out_6' | 'held_out_7' | 'held_out_8' | 'held_out_9' | 'held_out_10' | 'held_out_11' |
    'held_out_12' | 'held_out_13' | 'held_out_14' | 'held_out_15' | 'held_out_16' | 'held_out_17' | 'held_out_18' | 'held_out_19' | 'held_out_20' | 'held_out_21' | 'held_out_22' | 'held_out_23' | 'held_out_24' | 'held_out_25' | 'held_out_26' | 'held_out_27' | 'held_out_28' | 'held_out_29' | 'held_out_30' | 'held_out_31' | 'held_out_32' | 'held_out_33' | 'held_out_34' | 'held_out_35' | 'held_out_36' | 'held_out_37' | 'held_out_38' | 'held_out_39' | 'held_out_40' | 'held_out_41' | 'held_out_42' | 'held_out_43' | 'held_out_44' | 'held_out_45' | 'held_out_46' | 'held_out_47' | 'held_out_48' | 'held_out_49' | 'held_out_50' by the file's split_rule (see items.json). Round 1's hash rule is computed over round-1 items only, so a later
    round never moves one; every round-2 intent is held_out_2, every round-3 intent held_out_3, every
    round-4 intent held_out_4, every round-5 intent held_out_5, every round-6 intent held_out_6, every
    round-7 intent held_out_7, every round-8 intent held_out_8, every round-9 intent held_out_9,
    every round-10 intent held_out_10, every round-11 intent held_out_11, every round-12 intent
    held_out_12, every round-13 intent held_out_13, every round-14 intent held_out_14, every
    round-15 intent held_out_15, every round-16 intent held_out_16, every round-17 intent held_out_17, every round-18 intent held_out_18, every round-19 intent held_out_19, every round-20 intent held_out_20, every round-21 intent held_out_21, every round-22 intent held_out_22, every round-23 intent held_out_23, every round-24 intent held_out_24, every round-25 intent held_out_25, every round-26 intent held_out_26, every round-27 intent held_out_27, every round-28 intent held_out_28, every round-29 intent held_out_29, every round-30 intent held_out_30, every round-31 intent held_out_31, every round-32 intent held_out_32, every round-33 intent held_out_33, every round-34 intent held_out_34, every round-35 intent held_out_35, every round-36 intent held_out_36, every round-37 intent held_out_37, every round-38 intent held_out_38, every round-39 intent held_out_39, every round-40 intent held_out_40, every round-41 intent held_out_41, every round-42 intent held_out_42, every round-43 intent held_out_43, every round-44 intent held_out_44, every round-45 intent held_out_45, every round-46 intent held_out_46, every round-47 intent held_out_47, every round-48 intent held_out_48, every round-49 intent held_out_49, every round-50 intent held_out_50."""
    sizes, later = {}, {}
    for it in data["items"]:
        if round_of(it) in LATER_ROUNDS:
            later.setdefault(it["intent"], LATER_ROUNDS[round_of(it)][0])
            continue
        sizes[it["intent"]] = sizes.get(it["intent"], 0) + 1
    held, n = set(), 0
    for intent in sorted(sizes, key=lambda k: hashlib.sha256(k.encode("utf-8")).hexdigest()):
        if n + sizes[intent] <= HELD_OUT_SIZE:
            held.add(intent)
            n += sizes[intent]
        if n == HELD_OUT_SIZE:
            break
    rule = {i: ("held_out" if i in held else "dev") for i in sizes}
    rule.update({i: s for i, s in later.items() if i not in rule})
    return rule


def e2e_text():
    d = os.path.join(ROOT, "tests", "tests", "e2e")
    out = []
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if name.endswith(".rs"):
            with open(os.path.join(d, name), encoding="utf-8") as f:
                out.append(f.read())
    return "\n".join(out)


def words(s):
    return re.findall(r"[a-z0-9']+", s.lower())


def copied_wording(instruction, corpus):
    """A run of 5 words (EN) or 6 CJK characters (ZH) of the instruction found in the e2e tests."""
    w, cw = words(instruction), words(corpus)
    grams = {tuple(cw[i : i + 5]) for i in range(len(cw) - 4)}
    for i in range(len(w) - 4):
        if tuple(w[i : i + 5]) in grams:
            return " ".join(w[i : i + 5])
    cjk = "".join(re.findall(r"[\u4e00-\u9fff]", instruction))
    ccorpus = "".join(re.findall(r"[\u4e00-\u9fff]+|\n", corpus))
    for i in range(len(cjk) - 5):
        if cjk[i : i + 6] in ccorpus:
            return cjk[i : i + 6]
    return None


def check_set(data):
    """Problems with the set (an empty list when it is fit to run)."""
    probs = []
    items = data["items"]
    ids = [it["id"] for it in items]
    if len(items) < 20:
        probs.append(f"{len(items)} items, fewer than 20")
    if len(set(ids)) != len(ids):
        probs.append("duplicate item ids")
    rule = split_by_rule(data)
    held = [it for it in items if round_of(it) == 1 and rule[it["intent"]] == "held_out"]
    if len(held) != HELD_OUT_SIZE:
        probs.append(f"the rule gives {len(held)} held-out items, not {HELD_OUT_SIZE}")
    bad_round = sorted({str(it.get("id")) for it in items if round_of(it) not in (1, *LATER_ROUNDS)})
    if bad_round:
        probs.append(f"round not one of 1, {', '.join(map(str, LATER_ROUNDS))}: {', '.join(bad_round)}")
    for rnd, (_, size) in LATER_ROUNDS.items():
        n = sum(1 for it in items if round_of(it) == rnd)
        if n != size:
            probs.append(f"{n} round-{rnd} items, not {size}")
    rounds_of = {}
    for it in items:
        rounds_of.setdefault(it.get("intent"), set()).add(round_of(it))
    for i in sorted(i for i, rs in rounds_of.items() if len(rs) > 1):
        probs.append(f"intent {i!r} spans rounds {' and '.join(map(str, sorted(rounds_of[i])))}")
    corpus = e2e_text()
    for it in items:
        for k in ("id", "intent", "split", "lang", "app", "variant", "start", "instruction", "expect"):
            if k not in it:
                probs.append(f"{it.get('id')}: no {k}")
        want = LATER_ROUNDS[round_of(it)][0] if round_of(it) in LATER_ROUNDS else rule.get(it.get("intent"))
        if it.get("split") != want:
            probs.append(f"{it['id']}: split {it.get('split')!r}, the rule says {want!r}")
        if it.get("app") == "todomvc" and it.get("start") not in data["start_states"]:
            probs.append(f"{it['id']}: unknown start state {it.get('start')!r}")
        has = bool(CHECK_CLAUSE.search(it.get("instruction", "")))
        # A clause word that names a field ("the verify box", 确认密码) is marked `lookalike`.
        if has != bool(it.get("checks")) and not (has and it.get("lookalike")):
            probs.append(f"{it['id']}: checks={it.get('checks')} but the instruction {'has' if has else 'has no'} checkable clause")
        c = copied_wording(it.get("instruction", ""), corpus)
        if c:
            probs.append(f"{it['id']}: wording copied from tests/tests/e2e: {c!r}")
    langs = {it.get("lang") for it in items}
    if not {"en", "zh"} <= langs:
        probs.append(f"languages {sorted(langs)}: want en and zh")
    return probs


def select(data, split, ids=None):
    items = data["items"]
    if ids:
        want = set(ids)
        unknown = want - {it["id"] for it in items}
        if unknown:
            raise SystemExit(f"no such item: {', '.join(sorted(unknown))}")
        return [it for it in items if it["id"] in want]
    return [it for it in items if split == "all" or it["split"] == split]


# ---------------------------------------------------------------- the oracle


class States:
    """The latest state each page token reported (by the probe's sequence number)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.by_token = {}

    def record(self, body):
        tok = body.get("token")
        if not isinstance(tok, str):
            return
        with self.lock:
            old = self.by_token.get(tok)
            if old is None or (body.get("seq") or 0) >= (old.get("seq") or 0):
                body["at"] = time.time()
                self.by_token[tok] = body

    def get(self, tok):
        with self.lock:
            return self.by_token.get(tok)


def norm(s):
    return re.sub(r"\s+", " ", str(s)).strip()


def judge(item, state):
    """(right, why) from the page's own last reported state."""
    exp = item["expect"]
    if state is None:
        return False, "the page never reported its state"
    if "todos" in exp:
        got = state.get("todos")
        if got is None:
            return False, "the app's stored list could not be read"
        want = sorted((norm(t["title"]), bool(t["completed"])) for t in exp["todos"])
        have = sorted((norm(t.get("title", "")), bool(t.get("completed"))) for t in got)
        if want == have:
            return True, "stored list as expected"
        return False, f"stored list {fmt_todos(have)}, expected {fmt_todos(want)}"
    fold = set(exp.get("casefold", []))

    def same(key, a, b):
        a, b = norm(a), norm(b)
        return a.lower() == b.lower() if key in fold else a == b

    if "submitted" in exp:
        subs = state.get("submits") or []
        if not subs:
            return False, f"never submitted (fields at the end: {state.get('fields')})"
        last = subs[-1]["fields"]
        bad = {k: last.get(k) for k, v in exp["submitted"].items() if not same(k, last.get(k, ""), v)}
        if bad:
            return False, f"last submission (of {len(subs)}) had {bad}, expected {exp['submitted']}"
        return True, f"submitted as expected ({len(subs)} submission{'s' if len(subs) != 1 else ''})"
    if "fields" in exp:
        fields = state.get("fields") or {}
        bad = {k: fields.get(k) for k, v in exp["fields"].items() if not same(k, fields.get(k, ""), v)}
        subs = len(state.get("submits") or [])
        if "submits" in exp and subs != exp["submits"]:
            return False, f"submitted {subs} time(s), expected {exp['submits']}"
        if bad:
            return False, f"fields {bad}, expected {exp['fields']}"
        return True, "fields as expected"
    return False, "the item has no oracle"


def fmt_todos(ts):
    return "[" + ", ".join(f"{t}{' ✓' if c else ''}" for t, c in ts) + "]"


# ---------------------------------------------------------------- serving


def inject(html, cfg, probe_js):
    js = json.dumps(cfg, ensure_ascii=False).replace("</", "<\\/")
    tag = f"<script>window.__ARGUS_PP__ = {js};</script>\n<script>\n{probe_js}\n</script>\n"
    m = re.search(r"<head[^>]*>", html, re.I)
    if not m:
        return tag + html
    return html[: m.end()] + "\n" + tag + html[m.end() :]


def serve(roots, states, tokens, port=0):
    """roots: url prefix ('todomvc', 'mw') → folder; tokens: token → item."""
    with open(os.path.join(HERE, "probe.js"), encoding="utf-8") as f:
        probe_js = f.read()
    data = load_set()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def send(self, code, body=b"", ctype="text/plain"):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            u = urllib.parse.urlsplit(self.path)
            parts = [p for p in urllib.parse.unquote(u.path).split("/") if p]
            if not parts or parts[0] not in roots or any(p in ("..", ".") for p in parts):
                return self.send(404, b"not found")
            path = os.path.join(roots[parts[0]], *parts[1:])
            if os.path.isdir(path):
                path = os.path.join(path, "index.html")
            if not os.path.isfile(path):
                return self.send(404, b"not found")
            with open(path, "rb") as f:
                body = f.read()
            ctype = mimetypes.guess_type(path)[0] or "application/octet-stream"
            if path.endswith(".html"):
                q = urllib.parse.parse_qs(u.query)
                tok = (q.get("pp") or [None])[0]
                item = tokens.get(tok)
                kind = "todo" if parts[0] == "todomvc" else "form"
                variant = parts[2] if kind == "todo" and len(parts) > 2 else parts[-1][: -len(".html")]
                cfg = {"token": tok if item else None, "kind": kind, "variant": variant}
                if item and kind == "todo":
                    cfg["seed"] = data["start_states"][item["start"]]
                body = inject(body.decode("utf-8"), cfg, probe_js).encode("utf-8")
                ctype = "text/html; charset=utf-8"
            elif ctype.startswith("text/") or ctype in ("application/javascript",):
                ctype += "; charset=utf-8"
            self.send(200, body, ctype)

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            if self.path == "/__pp/state":
                try:
                    body = json.loads(raw or b"{}")
                    if isinstance(body, dict):
                        states.record(body)
                except ValueError:
                    pass
            elif self.path != "/bench/reward":  # the MiniWoB page's own reward beacon: not ours
                return self.send(404, b"not found")
            self.send(204)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def start_url(base, item, token):
    if item["app"] == "todomvc":
        return f"{base}/todomvc/examples/{item['variant']}/index.html?pp={token}"
    return f"{base}/mw/miniwob/{item['variant']}.html?argus_seed={MINIWOB_SEED}&pp={token}"


# ---------------------------------------------------------------- running


def run_items(args, items, base, tokens, states):
    by_tok = {t: it for t, it in tokens.items()}
    tok_of = {it["id"]: t for t, it in by_tok.items()}
    jobs = []
    for it in items:
        jobs.append(
            {
                "platform": "web",
                "mode": "llm",
                "cache": "off",
                "name": it["id"],
                "instruction": it["instruction"],
                "start_url": start_url(base, it, tok_of[it["id"]]),
                "max_steps": args.max_steps,
                "timeout_s": args.timeout_s,
                "queue_timeout_s": (len(items) + 1) * args.timeout_s,
            }
        )
    suite = {"name": f"paraphrase {args.tag}", "jobs": jobs, "matrix": [{"labels": {"bench": args.tag}}]}
    path = os.path.join(args.out, "suite.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(suite, f, indent=1, ensure_ascii=False)
    log(f"suite of {len(jobs)} items through the farm ({args.server})")
    p = subprocess.run(
        [args.argus, "suite", "run", path, "--server", args.server, "--junit", os.path.join(args.out, "junit.xml")],
        capture_output=True,
        text=True,
    )
    with open(os.path.join(args.out, "suite-run.txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    sys.stderr.write(p.stdout + p.stderr)
    suite_id = next((ln.split()[1].rstrip(":") for ln in p.stdout.splitlines() if ln.startswith("suite ")), None)
    if not suite_id:
        raise SystemExit("argus suite run did not start the suite (see suite-run.txt)")
    time.sleep(1.0)  # the probe reports twice a second: let the last state land
    s = harness.http_json("GET", f"{args.server}/api/v1/suites/{suite_id}", args.token)
    by_name = {j.get("name"): j for j in s.get("jobs", [])}
    rows = []
    for it in items:
        j = by_name.get(it["id"], {})
        run_id = (j.get("runs") or [None])[-1]
        run = harness.http_json("GET", f"{args.server}/api/v1/runs/{run_id}", args.token) if run_id else {}
        with open(os.path.join(args.out, f"run-{it['id'].replace('/', '_')}.json"), "w") as f:
            json.dump(run, f, indent=1, ensure_ascii=False)
        state = states.get(tok_of[it["id"]])
        rows.append(row_of(it, run, run_id, state))
    return rows


def row_of(it, run, run_id, state):
    right, why = judge(it, state)
    acts = [a for st in run.get("steps", []) for a in st.get("actions", [])]
    calls = sum((a.get("usage") or {}).get("calls", 0) for a in acts)
    t0, t1 = harness.ts(run.get("started_at")), harness.ts(run.get("finished_at"))
    status = run.get("status")
    return {
        "id": it["id"],
        "intent": it["intent"],
        "split": it["split"],
        "lang": it["lang"],
        "app": f"{it['app']}/{it['variant']}",
        "run_id": run_id,
        "status": status,
        "verdict_basis": (run.get("verdict") or {}).get("basis"),
        "expectations": [e.get("line", e) if isinstance(e, dict) else e for e in (run.get("expectations") or [])],
        "error": run.get("error"),
        "oracle_right": right,
        "oracle_why": why,
        "false_pass": status == "succeeded" and not right,
        "model_calls": calls,
        "seconds": (t1 - t0) if (t0 and t1) else None,
        "final_state": state,
    }


# ---------------------------------------------------------------- report

STATUSES = ("succeeded", "unverified", "failed", "errored", "timed_out")


def report(rows, split):
    head = f"{'item':<30} {'split':<10} {'lang':<4} {'app':<26} {'argus':<11} {'oracle':<6} {'false_pass':<10} {'calls':>5} {'secs':>7}"
    print(head)
    for r in rows:
        secs = "-" if r.get("seconds") is None else f"{r['seconds']:.1f}"
        print(
            f"{r['id']:<30} {r['split']:<10} {r['lang']:<4} {r['app']:<26} {str(r.get('status')):<11} "
            f"{'right' if r['oracle_right'] else 'wrong':<6} {'FALSE PASS' if r['false_pass'] else '-':<10} "
            f"{r.get('model_calls', 0):>5} {secs:>7}"
        )
    for r in rows:
        if not r["oracle_right"] or r.get("status") != "succeeded":
            basis = r.get("verdict_basis") or r.get("error") or ""
            print(f"# {r['id']} (run {r.get('run_id')}): oracle: {r['oracle_why']}; argus {r.get('status')}: {basis[:300]}")
    counts = " ".join(f"{s}={sum(1 for r in rows if r.get('status') == s)}" for s in STATUSES)
    other = sum(1 for r in rows if r.get("status") not in STATUSES)
    agree = sum(1 for r in rows if (r.get("status") == "succeeded") == r["oracle_right"])
    print(f"# argus: {counts} other={other}; argus succeeded ⇔ oracle right on {agree}/{len(rows)}")
    print(
        f"paraphrase_right={sum(1 for r in rows if r['oracle_right'])}/{len(rows)} "
        f"false_pass={sum(1 for r in rows if r['false_pass'])} split={split}"
    )


def retable(out):
    rows = harness.load_rows(os.path.join(out, "rows.jsonl"))
    settings = {}
    if os.path.exists(os.path.join(out, "settings.json")):
        with open(os.path.join(out, "settings.json")) as f:
            settings = json.load(f)
    report(rows, settings.get("split", "?"))


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--check-set":
        data = load_set(sys.argv[2] if len(sys.argv) > 2 else ITEMS)
        probs = check_set(data)
        rule = split_by_rule(data)
        held = sorted(i for i, s in rule.items() if s == "held_out")
        n_held = sum(1 for it in data["items"] if round_of(it) == 1 and rule.get(it["intent"]) == "held_out")
        n_held2 = sum(1 for it in data["items"] if it.get("split") == ROUND2_SPLIT)
        n_held3 = sum(1 for it in data["items"] if it.get("split") == ROUND3_SPLIT)
        n_held4 = sum(1 for it in data["items"] if it.get("split") == ROUND4_SPLIT)
        n_held5 = sum(1 for it in data["items"] if it.get("split") == ROUND5_SPLIT)
        n_held6 = sum(1 for it in data["items"] if it.get("split") == ROUND6_SPLIT)
        n_held7 = sum(1 for it in data["items"] if it.get("split") == ROUND7_SPLIT)
        n_held8 = sum(1 for it in data["items"] if it.get("split") == ROUND8_SPLIT)
        n_held9 = sum(1 for it in data["items"] if it.get("split") == ROUND9_SPLIT)
        n_held10 = sum(1 for it in data["items"] if it.get("split") == ROUND10_SPLIT)
        n_held11 = sum(1 for it in data["items"] if it.get("split") == ROUND11_SPLIT)
        n_held12 = sum(1 for it in data["items"] if it.get("split") == ROUND12_SPLIT)
        n_held13 = sum(1 for it in data["items"] if it.get("split") == ROUND13_SPLIT)
        n_held14 = sum(1 for it in data["items"] if it.get("split") == ROUND14_SPLIT)
        n_held15 = sum(1 for it in data["items"] if it.get("split") == ROUND15_SPLIT)
        n_held16 = sum(1 for it in data["items"] if it.get("split") == ROUND16_SPLIT)
        n_held17 = sum(1 for it in data["items"] if it.get("split") == ROUND17_SPLIT)
        n_held18 = sum(1 for it in data["items"] if it.get("split") == ROUND18_SPLIT)
        n_held19 = sum(1 for it in data["items"] if it.get("split") == ROUND19_SPLIT)
        n_held20 = sum(1 for it in data["items"] if it.get("split") == ROUND20_SPLIT)
        n_held21 = sum(1 for it in data["items"] if it.get("split") == ROUND21_SPLIT)
        n_held22 = sum(1 for it in data["items"] if it.get("split") == ROUND22_SPLIT)
        n_held23 = sum(1 for it in data["items"] if it.get("split") == ROUND23_SPLIT)
        n_held24 = sum(1 for it in data["items"] if it.get("split") == ROUND24_SPLIT)
        n_held25 = sum(1 for it in data["items"] if it.get("split") == ROUND25_SPLIT)
        n_held26 = sum(1 for it in data["items"] if it.get("split") == ROUND26_SPLIT)
        n_held27 = sum(1 for it in data["items"] if it.get("split") == ROUND27_SPLIT)
        n_held28 = sum(1 for it in data["items"] if it.get("split") == ROUND28_SPLIT)
        n_held29 = sum(1 for it in data["items"] if it.get("split") == ROUND29_SPLIT)
        n_held30 = sum(1 for it in data["items"] if it.get("split") == ROUND30_SPLIT)
        n_held31 = sum(1 for it in data["items"] if it.get("split") == ROUND31_SPLIT)
        n_held32 = sum(1 for it in data["items"] if it.get("split") == ROUND32_SPLIT)
        n_held33 = sum(1 for it in data["items"] if it.get("split") == ROUND33_SPLIT)
        n_held34 = sum(1 for it in data["items"] if it.get("split") == ROUND34_SPLIT)
        n_held35 = sum(1 for it in data["items"] if it.get("split") == ROUND35_SPLIT)
        n_held36 = sum(1 for it in data["items"] if it.get("split") == ROUND36_SPLIT)
        n_held37 = sum(1 for it in data["items"] if it.get("split") == ROUND37_SPLIT)
        n_held38 = sum(1 for it in data["items"] if it.get("split") == ROUND38_SPLIT)
        n_held39 = sum(1 for it in data["items"] if it.get("split") == ROUND39_SPLIT)
        n_held40 = sum(1 for it in data["items"] if it.get("split") == ROUND40_SPLIT)
        n_held41 = sum(1 for it in data["items"] if it.get("split") == ROUND41_SPLIT)
        n_held42 = sum(1 for it in data["items"] if it.get("split") == ROUND42_SPLIT)
        n_held43 = sum(1 for it in data["items"] if it.get("split") == ROUND43_SPLIT)
        n_held44 = sum(1 for it in data["items"] if it.get("split") == ROUND44_SPLIT)
        n_held45 = sum(1 for it in data["items"] if it.get("split") == ROUND45_SPLIT)
        n_held46 = sum(1 for it in data["items"] if it.get("split") == ROUND46_SPLIT)
        n_held47 = sum(1 for it in data["items"] if it.get("split") == ROUND47_SPLIT)
        n_held48 = sum(1 for it in data["items"] if it.get("split") == ROUND48_SPLIT)
        n_held49 = sum(1 for it in data["items"] if it.get("split") == ROUND49_SPLIT)
        n_held50 = sum(1 for it in data["items"] if it.get("split") == ROUND50_SPLIT)
        n_checks = sum(1 for it in data["items"] if it.get("checks"))
        print(
            f"items={len(data['items'])} intents={len(rule)} held_out={n_held} ({', '.join(held)}) "
            f"held_out_2={n_held2} (round 2) held_out_3={n_held3} (round 3) held_out_4={n_held4} (round 4) "
            f"held_out_5={n_held5} (round 5) held_out_6={n_held6} (round 6) held_out_7={n_held7} (round 7) "
            f"held_out_8={n_held8} (round 8) held_out_9={n_held9} (round 9) held_out_10={n_held10} (round 10) "
            f"held_out_11={n_held11} (round 11) held_out_12={n_held12} (round 12) held_out_13={n_held13} (round 13) "
            f"held_out_14={n_held14} (round 14) held_out_15={n_held15} (round 15) held_out_16={n_held16} (round 16) held_out_17={n_held17} (round 17) held_out_18={n_held18} (round 18) held_out_19={n_held19} (round 19) held_out_20={n_held20} (round 20) "
            f"held_out_21={n_held21} (round 21) held_out_22={n_held22} (round 22) "
            f"held_out_23={n_held23} (round 23) held_out_24={n_held24} (round 24) held_out_25={n_held25} (round 25) held_out_26={n_held26} (round 26) "
            f"held_out_27={n_held27} (round 27) held_out_28={n_held28} (round 28) held_out_29={n_held29} (round 29) held_out_30={n_held30} (round 30) "
            f"held_out_31={n_held31} (round 31) held_out_32={n_held32} (round 32) held_out_33={n_held33} (round 33) "
            f"held_out_34={n_held34} (round 34) held_out_35={n_held35} (round 35) held_out_36={n_held36} (round 36) "
            f"held_out_37={n_held37} (round 37) held_out_38={n_held38} (round 38) "
            f"held_out_39={n_held39} (round 39) held_out_40={n_held40} (round 40) "
            f"held_out_41={n_held41} (round 41) held_out_42={n_held42} (round 42) "
            f"held_out_43={n_held43} (round 43) held_out_44={n_held44} (round 44) "
            f"held_out_45={n_held45} (round 45) held_out_46={n_held46} (round 46) "
            f"held_out_47={n_held47} (round 47) held_out_48={n_held48} (round 48) "
            f"held_out_49={n_held49} (round 49) held_out_50={n_held50} (round 50) "
            f"with_checkable_clause={n_checks} zh={sum(1 for it in data['items'] if it['lang'] == 'zh')}"
        )
        for p in probs:
            print(f"PROBLEM: {p}")
        sys.exit(1 if probs else 0)
    if len(sys.argv) == 3 and sys.argv[1] == "--retable":
        retable(sys.argv[2])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", choices=SPLITS, default="held_out")
    ap.add_argument("--ids", default="", help="comma-separated item ids (a subset, e.g. to check the plumbing)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--argus", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--tag", required=True)
    ap.add_argument("--www-port", type=int, default=0)
    ap.add_argument("--todomvc-dir", required=True)
    ap.add_argument("--miniwob-html", required=True)
    ap.add_argument("--model-url", default="")
    ap.add_argument("--model", default="")
    ap.add_argument("--max-steps", type=int, default=15)
    ap.add_argument("--timeout-s", type=int, default=600)
    args = ap.parse_args()
    args.token = os.environ.get("ARGUS_API_TOKEN", "")
    os.makedirs(args.out, exist_ok=True)

    data = load_set()
    probs = check_set(data)
    if probs:
        raise SystemExit("the set is not fit to run:\n" + "\n".join(probs))
    ids = [i.strip() for i in args.ids.split(",") if i.strip()]
    items = select(data, args.split, ids)
    split = "subset" if ids else args.split
    if not items:
        raise SystemExit("no items selected")
    www = harness.prepare_www(os.path.join(args.out, "mw"), args.miniwob_html)
    states = States()
    tokens = {f"{args.tag}-{i}": it for i, it in enumerate(items)}
    srv = serve({"todomvc": args.todomvc_dir, "mw": www}, states, tokens, args.www_port)
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    log(f"serving TodoMVC at {base}/todomvc/examples/ and the forms at {base}/mw/miniwob/ (oracle probe injected)")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()
    with open(os.path.join(args.out, "settings.json"), "w") as f:
        json.dump(
            {"commit": commit, "split": split, "ids": [it["id"] for it in items], "model_url": args.model_url,
             "model": args.model, "max_steps": args.max_steps, "timeout_s": args.timeout_s},
            f,
            indent=1,
        )
    for it in items:
        log(f"{it['id']} [{it['split']}, {it['app']}/{it['variant']}, start {it['start']}]: {it['instruction']}")
    rows = run_items(args, items, base, tokens, states)
    with open(os.path.join(args.out, "rows.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    report(rows, split)
    srv.shutdown()


if __name__ == "__main__":
    main()
