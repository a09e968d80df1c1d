"""Small SVG pictures of the Metro X maps (issue 33), for the lobby's map choice.

Each picture is drawn from the map's own data (its lines in their colours, its stations, the
interchanges larger), so a new or changed map gets its picture by running

    .venv/bin/python -m games.metrox.thumbnail

which writes games/metrox/web/maps/<id>.svg for every shipped map; a test checks that the files
in the project are what this module draws.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from games.metrox import maps
from games.metrox.maps import MetroXMap

OUT_DIR = Path(__file__).parent / "web" / "maps"
WIDTH, HEIGHT, PAD = 160, 120, 8


def draw(m: MetroXMap) -> str:
    """The map as a WIDTH x HEIGHT SVG document (no script, no external reference)."""
    st = m.data["stations"]
    xs, ys = [s["x"] for s in st], [s["y"] for s in st]
    x0, y0 = min(xs), min(ys)
    scale = min((WIDTH - 2 * PAD) / max(max(xs) - x0, 1), (HEIGHT - 2 * PAD) / max(max(ys) - y0, 1))
    ox = (WIDTH - (max(xs) - x0) * scale) / 2
    oy = (HEIGHT - (max(ys) - y0) * scale) / 2
    at = {s["id"]: (ox + (s["x"] - x0) * scale, oy + (s["y"] - y0) * scale) for s in st}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img">',
        f"<title>{escape(m.name)}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="6" fill="#ffffff"/>',
    ]
    for line in m.data["lines"]:
        points = " ".join(f"{at[s][0]:.1f},{at[s][1]:.1f}" for s in line["stations"])
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{line["colour"]}" '
            'stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round"/>'
        )
    for i, s in enumerate(st):
        x, y = at[s["id"]]
        r = 2.4 if m.degree[i] >= 2 else 1.4
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="#ffffff" stroke="#222222" '
            'stroke-width="0.8"/>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_all() -> list[Path]:
    """Draw every shipped map into OUT_DIR; the paths written."""
    OUT_DIR.mkdir(exist_ok=True)
    written = []
    for m in maps.shipped().values():
        path = OUT_DIR / f"{m.id}.svg"
        path.write_text(draw(m), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_all():
        print(p)
