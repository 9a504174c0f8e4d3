#!/usr/bin/python3
"""Generates the perception evaluation sets: UI text pages and keypad pages, each rendered in
Chromium (headless `--screenshot`) and in GTK 3 (python3-gi under Xvfb, gtk_page.py).

    perception/sets/generate.py OUT_DIR [--only text|keypad] [--part tune|tune_more|tune_fonts|held]

Everything is drawn from seeded random generators; nothing is picked by hand. Seeds are split:
the **tuning** part (seeds TUNE_SEEDS) may be looked at while tuning the pixel channel, the
**held-out** part (seeds HELD_SEEDS) is what perception-bench reports. Output:

    OUT_DIR/<set>/<part>/<renderer>-<seed>.png   the screenshot (1× device px)
    OUT_DIR/<set>/<part>/<renderer>-<seed>.json  the page: font, size, and every item
                                                  (kind, text, box = [x, y, w, h] px as drawn)

Sets:
- text: labels and buttons of generated UI text (words from a UI vocabulary, numbers, times,
  prices, dates, versions), one font family and one font size per page, laid out in rows;
  every (renderer, font, size) combination appears in each part.
- keypad: button grids of one-character buttons (digits, operators, letters: calculators, PIN
  pads, keyboard rows, scientific pads with a few multi-character keys), button side, gap,
  glyph size, font and theme drawn per page; three button-size classes per part.

Requires Debian packages chromium, xvfb, python3-gi, gir1.2-gtk-3.0, fonts-dejavu-core,
fonts-liberation (or fonts-liberation2). No network.
"""
import argparse
import html
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHROMIUM = "/usr/lib/chromium/chromium"

#: Seeds of the tuning part (may be used while tuning) and the held-out part (reported).
TUNE_SEEDS = range(0, 1000)
HELD_SEEDS = range(1000, 2000)

FONTS = ["DejaVu Sans", "Liberation Sans", "Liberation Serif", "DejaVu Sans Mono"]
#: Text sizes, CSS px at 1×: small captions to headings.
TEXT_SIZES = [12, 14, 17, 22]
#: Keypad button side classes, px (min, max): small, medium, large touch targets.
KEY_CLASSES = {"small": (26, 38), "medium": (40, 54), "large": (56, 76)}
PAGE_W, PAGE_H = 1024, 640

THEMES = [
    # fg, bg, button bg, button fg, border
    ("#202124", "#ffffff", "#e8eaed", "#202124", "#babcbe"),
    ("#1b1b1b", "#f4f1ea", "#ffffff", "#1b1b1b", "#a09a90"),
    ("#e8eaed", "#202124", "#3c4043", "#e8eaed", "#5f6368"),
    ("#ffffff", "#12355b", "#1f4e86", "#ffffff", "#6f93c0"),
    ("#333333", "#ffffff", "#1a73e8", "#ffffff", "#1a73e8"),
]

VERBS = """add apply archive back browse cancel change check clear close confirm connect continue
copy create delete disable download edit enable export filter finish follow forward hide import
install invite join load lock login logout manage move next open pause play preview print refresh
reload remove rename reply reset restore resume retry save search select send share show skip sort
start stop submit sync undo unlock update upgrade upload verify view""".split()
NOUNS = """account address alarm album archive battery bookmark calendar camera card cart channel
chat contact contacts device display document download draft email event feed file files folder
friends gallery group history home inbox invoice item items language library link list location
map media message messages music network note notes notification order orders page password
payment photo photos playlist privacy profile project report settings storage subscription
task tasks team theme ticket timer update user users video wallet weather window workspace""".split()
ADJS = """active all archived available blocked new default dark recent pending private public
saved shared unread weekly daily monthly selected hidden offline online secure advanced basic
""".split()
MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
WEEKDAYS = "Mon Tue Wed Thu Fri Sat Sun".split()


def token(rng):
    """One generated non-vocabulary token (number, time, price, date part, version...)."""
    kind = rng.randrange(7)
    if kind == 0:
        return str(rng.randrange(1, 10000))
    if kind == 1:
        return f"{rng.randrange(0, 24):02d}:{rng.randrange(0, 60):02d}"
    if kind == 2:
        return f"${rng.randrange(1, 500)}.{rng.randrange(0, 100):02d}"
    if kind == 3:
        return f"{rng.randrange(1, 100)}%"
    if kind == 4:
        return f"v{rng.randrange(1, 20)}.{rng.randrange(0, 10)}.{rng.randrange(0, 30)}"
    if kind == 5:
        return rng.choice(MONTHS)
    return rng.choice(WEEKDAYS)


def cap(w, rng):
    return w.capitalize() if rng.random() < 0.8 else w


def label_text(rng):
    """A 1–4 word UI label from one of a few shapes."""
    shape = rng.randrange(8)
    if shape == 0:
        return cap(rng.choice(VERBS), rng)
    if shape == 1:
        return f"{cap(rng.choice(VERBS), rng)} {rng.choice(NOUNS)}"
    if shape == 2:
        return f"{cap(rng.choice(ADJS), rng)} {rng.choice(NOUNS)}"
    if shape == 3:
        return f"{cap(rng.choice(NOUNS), rng)} {token(rng)}"
    if shape == 4:
        return f"{token(rng)} {rng.choice(NOUNS)}"
    if shape == 5:
        return f"{cap(rng.choice(VERBS), rng)} {rng.choice(ADJS)} {rng.choice(NOUNS)}"
    if shape == 6:
        return f"{rng.choice(WEEKDAYS)} {rng.randrange(1, 29)} {rng.choice(MONTHS)}"
    return f"{cap(rng.choice(NOUNS), rng)} {rng.choice(['and', 'or', 'for', 'in'])} {rng.choice(NOUNS)}"


def text_width(text, size, font):
    """Generous width estimate, px: the box must hold the text in every renderer."""
    per = 0.64 if "Mono" in font else 0.62
    return int(len(text) * size * per) + 8


def theme_fields(rng):
    fg, bg, bbg, bfg, border = rng.choice(THEMES)
    return {"fg": fg, "bg": bg, "button_bg": bbg, "button_fg": bfg, "border": border,
            "radius": rng.choice([0, 3, 6])}


def text_page(seed, font, size):
    """Rows of labels and buttons; every item's box holds its text with padding."""
    rng = random.Random(seed)
    page = {"set": "text", "seed": seed, "font": font, "size_px": size,
            "width": PAGE_W, "height": PAGE_H, "items": [], **theme_fields(rng)}
    y = 12
    while True:
        row_h = int(size * 2.2) + 6
        if y + row_h > PAGE_H - 8:
            break
        x = 12 + rng.randrange(0, 30)
        while True:
            text = label_text(rng)
            kind = "button" if rng.random() < 0.45 else "label"
            pad = int(size * 1.4) if kind == "button" else 4
            w = text_width(text, size, font) + 2 * pad
            if x + w > PAGE_W - 12:
                break
            h = int(size * 2.0) if kind == "button" else int(size * 1.5)
            page["items"].append({"kind": kind, "text": text, "x": x, "y": y, "w": w, "h": h})
            x += w + rng.randrange(max(size, 12), 4 * size)
        y += row_h + rng.randrange(4, 2 * size)
    return page


DIGITS = list("0123456789")
OPS = list("+-×÷=.%*#/")
LETTERS = list("QWERTYUIOPASDFGHJKLZXCVBNM")
LONG_KEYS = ["DEG", "sin", "cos", "tan", "CE/C", "AC", "log", "ln", "MR", "M+", "Del", "OK"]


def keypad_glyphs(rng, n):
    """`n` key labels for one grid: one of four pad kinds."""
    kind = rng.randrange(4)
    if kind == 0:  # calculator
        pool = DIGITS + OPS
    elif kind == 1:  # PIN pad
        pool = DIGITS + ["*", "#"]
    elif kind == 2:  # keyboard rows
        pool = LETTERS + (LETTERS if rng.random() < 0.5 else [c.lower() for c in LETTERS])
    else:  # scientific: a few long keys among one-character ones
        pool = DIGITS + OPS
    keys = [rng.choice(pool) for _ in range(n)]
    if kind == 3:
        for k in rng.sample(range(n), max(1, n // 5)):
            keys[k] = rng.choice(LONG_KEYS)
    return keys


def keypad_page(seed, size_class):
    """One or two button grids of one-character keys (a few long keys in scientific pads)."""
    rng = random.Random(seed)
    lo, hi = KEY_CLASSES[size_class]
    font = rng.choice(FONTS)
    page = {"set": "keypad", "seed": seed, "font": font, "size_class": size_class,
            "width": PAGE_W, "height": PAGE_H, "items": [], **theme_fields(rng)}
    side = rng.randrange(lo, hi + 1)
    page["size_px"] = max(11, int(side * rng.uniform(0.36, 0.55)))
    x0 = 16 + rng.randrange(0, 60)
    while x0 < PAGE_W - 4 * side:
        cols = rng.randrange(3, 8)
        rows = rng.randrange(3, 6)
        kw = int(side * rng.uniform(1.0, 1.5))
        gap = rng.randrange(2, 14)
        if x0 + cols * (kw + gap) > PAGE_W - 8:
            break
        y0 = 16 + rng.randrange(0, max(1, PAGE_H - rows * (side + gap) - 32))
        keys = keypad_glyphs(rng, rows * cols)
        for r in range(rows):
            for c in range(cols):
                page["items"].append({"kind": "button", "text": keys[r * cols + c],
                                      "x": x0 + c * (kw + gap), "y": y0 + r * (side + gap),
                                      "w": kw, "h": side})
        x0 += cols * (kw + gap) + rng.randrange(24, 120)
    return page


def page_html(page):
    rows = []
    for it in page["items"]:
        tag = "button" if it["kind"] == "button" else "div"
        cls = "b" if it["kind"] == "button" else "l"
        rows.append(
            f'<{tag} class="{cls}" style="left:{it["x"]}px;top:{it["y"]}px;'
            f'width:{it["w"]}px;height:{it["h"]}px">{html.escape(it["text"])}</{tag}>'
        )
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
html,body{{margin:0;background:{page['bg']};color:{page['fg']};overflow:hidden}}
*{{font-family:'{page['font']}';font-size:{page['size_px']}px;box-sizing:border-box}}
.l,.b{{position:absolute;white-space:nowrap;display:flex;align-items:center}}
.l{{justify-content:flex-start}}
.b{{justify-content:center;padding:0;background:{page['button_bg']};color:{page['button_fg']};
border:1px solid {page['border']};border-radius:{page['radius']}px}}
</style></head><body>{''.join(rows)}</body></html>"""


def render_chromium(page, stem, scratch):
    src = os.path.join(scratch, os.path.basename(stem) + ".html")
    with open(src, "w", encoding="utf-8") as fh:
        fh.write(page_html(page))
    profile = tempfile.mkdtemp(dir=scratch)
    subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
         f"--window-size={page['width']},{page['height']}", f"--screenshot={stem}.png",
         "file://" + src],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
    )
    for it in page["items"]:
        it["box"] = [it["x"], it["y"], it["w"], it["h"]]
    write_json(page, stem + ".json")


def render_gtk(specs):
    """Renders every spec path (JSON already written) in one GTK process under Xvfb."""
    if not specs:
        return
    subprocess.run(
        ["xvfb-run", "-a", "-s", f"-screen 0 {PAGE_W}x{PAGE_H}x24",
         "/usr/bin/python3", os.path.join(HERE, "gtk_page.py"), *specs],
        check=True, timeout=600,
    )


def write_json(page, path):
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(page, fh, indent=1, ensure_ascii=False)


def plan(part):
    """(set, renderer, seed, page) for one part; seeds drawn from the part's range in order.
    `tune_more` is a second, larger tuning part (keypads as many as the held-out part has) from
    the upper half of the tuning seeds; `tune_fonts` a third, with text in every font at every
    size as the held-out part has (keypads as `tune`), from seeds 250-499."""
    seeds = iter(
        {"tune": TUNE_SEEDS, "tune_more": TUNE_SEEDS[500:], "tune_fonts": TUNE_SEEDS[250:500]}.get(
            part, HELD_SEEDS
        )
    )
    out = []
    for renderer in ["chromium", "gtk"]:
        for size in TEXT_SIZES:
            every_font = part in ("held", "tune_fonts")
            fonts = FONTS if every_font else [FONTS[TEXT_SIZES.index(size) % len(FONTS)]]
            for font in fonts:
                s = next(seeds)
                out.append(("text", renderer, s, text_page(s, font, size)))
        for size_class in KEY_CLASSES:
            for _ in range(1 if part in ("tune", "tune_fonts") else 4):
                s = next(seeds)
                out.append(("keypad", renderer, s, keypad_page(s, size_class)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--only", choices=["text", "keypad"])
    ap.add_argument("--part", choices=["tune", "tune_more", "tune_fonts", "held"])
    a = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="argus-sets-")
    try:
        for part in [a.part] if a.part else ["tune", "held"]:
            gtk = []
            for set_name, renderer, seed, page in plan(part):
                if a.only and set_name != a.only:
                    continue
                d = os.path.join(a.out, set_name, part)
                os.makedirs(d, exist_ok=True)
                stem = os.path.join(d, f"{renderer}-{seed}")
                if renderer == "chromium":
                    render_chromium(page, stem, scratch)
                else:
                    write_json(page, stem + ".json")
                    gtk.append(stem + ".json")
            render_gtk(gtk)
            print(f"generate.py: {part} part written under {a.out}", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
