"""Checks the digits example's plot against the numbers it printed beside it.

    check_plot.py OUT_DIR

Reads OUT_DIR/digits.svg as XML and OUT_DIR/history.csv. For each panel it takes
the y axis from the tick labels (each label's value at its grid line's height),
maps every point of every line back to a value through that axis, and compares
with the CSV: each line must be the series its legend colour names, with one point
per epoch at the right value. Standard library only.
"""

import csv
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
PANELS = ["training loss", "held-out accuracy"]
COLUMN = {"training loss": "loss", "held-out accuracy": "accuracy"}


def fail(msg):
    print(f"check_plot.py: {msg}", file=sys.stderr)
    sys.exit(1)


def read_history(path):
    series = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            series.setdefault(row["model"], []).append(row)
    for name, rows in series.items():
        if [int(r["epoch"]) for r in rows] != list(range(1, len(rows) + 1)):
            fail(f"{path}: the epochs of {name} are not 1, 2, ...")
    return series


def panel_of(x, width):
    return int(float(x) // width)


def main():
    if len(sys.argv) != 2:
        fail("usage: check_plot.py OUT_DIR")
    out = sys.argv[1]
    history = read_history(f"{out}/history.csv")
    root = ET.parse(f"{out}/digits.svg").getroot()
    if root.tag != NS + "svg":
        fail(f"the root element is {root.tag}, not svg")
    texts = [(t, t.text or "") for t in root.iter(NS + "text")]
    lines = list(root.iter(NS + "line"))

    # The legend: a short line in the title bar (y < 30) and the name to its right.
    legend = {}
    for line in lines:
        if float(line.get("y1")) < 30:
            x2 = float(line.get("x2"))
            name = min((abs(float(t.get("x")) - x2), s) for t, s in texts if float(t.get("y")) < 30 and
                       float(t.get("x")) > x2)[1]
            legend[line.get("stroke")] = name
    if sorted(legend.values()) != sorted(history):
        fail(f"the legend names {sorted(legend.values())}, the history {sorted(history)}")

    width = float(root.get("width")) / len(PANELS)
    titles = {s: panel_of(t.get("x"), width) for t, s in texts if s in PANELS}
    if sorted(titles) != sorted(PANELS):
        fail(f"panel titles {sorted(titles)}, expected {PANELS}")
    checked = 0
    for title, k in titles.items():
        # Tick labels: right-aligned numbers; their grid lines are 4 units above the text baseline.
        ticks = [(float(t.get("y")) - 4, float(s)) for t, s in texts
                 if t.get("text-anchor") == "end" and panel_of(t.get("x"), width) == k]
        if len(ticks) < 2:
            fail(f"{title}: {len(ticks)} tick labels")
        (y0, v0), (y1, v1) = ticks[0], ticks[-1]
        to_value = lambda y: v0 + (float(y) - y0) * (v1 - v0) / (y1 - y0)
        tolerance = abs(v1 - v0) * 1e-4
        polylines = [p for p in root.iter(NS + "polyline")
                     if panel_of(p.get("points").split()[0].split(",")[0], width) == k]
        if len(polylines) != len(history):
            fail(f"{title}: {len(polylines)} lines for {len(history)} models")
        for p in polylines:
            name = legend.get(p.get("stroke"))
            if name is None:
                fail(f"{title}: a line of colour {p.get('stroke')} that the legend does not name")
            want = [float(r[COLUMN[title]]) for r in history[name]]
            got = [to_value(pt.split(",")[1]) for pt in p.get("points").split()]
            if len(got) != len(want):
                fail(f"{title}, {name}: {len(got)} points for {len(want)} epochs")
            xs = [float(pt.split(",")[0]) for pt in p.get("points").split()]
            if xs != sorted(xs) or len(set(xs)) != len(xs):
                fail(f"{title}, {name}: the points do not go left to right")
            for epoch, (g, w) in enumerate(zip(got, want), start=1):
                if abs(g - w) > tolerance:
                    fail(f"{title}, {name}, epoch {epoch}: the plot shows {g:.6f}, the history says {w:.6f}")
            checked += len(got)
    print(f"check_plot.py: {checked} points of {len(history)} models in {len(PANELS)} panels agree with the history")


main()
