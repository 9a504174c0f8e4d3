#!/usr/bin/python3
"""Renders page specs (JSON, see generate.py) as GTK 3 windows and saves each as a PNG.

Run by generate.py under Xvfb with Debian's python3-gi:
    gtk_page.py SPEC.json [SPEC.json ...]
For each SPEC.json it writes SPEC.png beside it and rewrites SPEC.json with every item's box
as GTK laid it out (`box`: x, y, w, h in px, window coordinates), so the truth is what was
drawn, not what was asked for.
"""
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

SETTLE_MS = 400


def css_for(spec):
    fg, bg = spec["fg"], spec["bg"]
    btn_bg, btn_fg = spec["button_bg"], spec["button_fg"]
    return f"""
    * {{ font-family: "{spec['font']}"; font-size: {spec['size_px']}px; }}
    window, .page {{ background-color: {bg}; color: {fg}; }}
    label {{ color: {fg}; }}
    button {{ background-image: none; background-color: {btn_bg}; color: {btn_fg};
              border: 1px solid {spec['border']}; border-radius: {spec['radius']}px;
              padding: 0; min-height: 0; min-width: 0; box-shadow: none; text-shadow: none; }}
    button label {{ color: {btn_fg}; }}
    """.encode()


def build(spec):
    win = Gtk.Window()
    win.set_decorated(False)
    win.set_default_size(spec["width"], spec["height"])
    win.move(0, 0)
    provider = Gtk.CssProvider()
    provider.load_from_data(css_for(spec))
    Gtk.StyleContext.add_provider_for_screen(
        Gdk.Screen.get_default(), provider, Gtk.STYLE_PROVIDER_PRIORITY_USER
    )
    fixed = Gtk.Fixed()
    fixed.get_style_context().add_class("page")
    win.add(fixed)
    widgets = []
    for it in spec["items"]:
        if it["kind"] == "button":
            w = Gtk.Button(label=it["text"])
        else:
            w = Gtk.Label(label=it["text"])
            w.set_xalign(0.0)
        w.set_size_request(it["w"], it["h"])
        fixed.put(w, it["x"], it["y"])
        widgets.append(w)
    return win, widgets, provider


def shoot(spec_path):
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)
    win, widgets, provider = build(spec)
    win.show_all()

    def done():
        gdkwin = win.get_window()
        pb = Gdk.pixbuf_get_from_window(gdkwin, 0, 0, spec["width"], spec["height"])
        pb.savev(spec_path[:-5] + ".png", "png", [], [])
        for it, w in zip(spec["items"], widgets):
            x, y = w.translate_coordinates(win, 0, 0)
            it["box"] = [x, y, w.get_allocated_width(), w.get_allocated_height()]
        with open(spec_path, "w", encoding="utf-8") as fh:
            json.dump(spec, fh, indent=1, ensure_ascii=False)
        Gtk.StyleContext.remove_provider_for_screen(Gdk.Screen.get_default(), provider)
        win.destroy()
        Gtk.main_quit()
        return False

    GLib.timeout_add(SETTLE_MS, done)
    Gtk.main()


if __name__ == "__main__":
    for p in sys.argv[1:]:
        shoot(p)
