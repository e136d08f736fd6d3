"""Inline SVG charts for report.html, drawn by hand: no library, no script, no network.

Three shapes cover the report: vertical bars (reachable states per player count, on a
log scale when the values span orders of magnitude), stacked horizontal bars (seconds per
property, one segment per player count) and lines (the shortest game to each win, per
player count). Every function returns SVG text with a <title> for screen readers, or a
short paragraph when there is nothing to draw. Colours are the Okabe–Ito palette, which
stays distinct for colour-blind readers; every series is also named in a legend.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
WIDTH = 640
FONT = 'font-family="system-ui, sans-serif" font-size="11"'


def compact(value: float) -> str:
    """A number in a few characters: 950, 12k, 3.4M, 0.25."""
    if value == 0:
        return "0"
    if abs(value) < 10 and value != int(value):
        return f"{value:.2g}"
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= limit:
            scaled = value / limit
            return f"{scaled:.1f}".rstrip("0").rstrip(".") + suffix if scaled < 10 else f"{scaled:.0f}{suffix}"
    return f"{value:.0f}"


def nice_ticks(high: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least `high`."""
    if high <= 0:
        return [0.0, 1.0]
    raw = high / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    ticks = [0.0]
    while ticks[-1] < high - 1e-12:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _svg(title: str, height: int, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" role="img" '
            f'class="chart" {FONT}><title>{escape(title)}</title>\n' + "\n".join(body) + "\n</svg>")


def _none(title: str) -> str:
    return f'<p class="nodata">{escape(title)}: no data in this run.</p>'


def bar_chart(title: str, bars: Sequence[tuple[str, float]], y_label: str) -> str:
    """Vertical bars with their values on top; log scale when the values span > 100×."""
    values = [v for _, v in bars if v > 0]
    if not values:
        return _none(title)
    log = max(values) / min(values) > 100
    left, top, bottom, height = 64, 16, 40, 260
    plot_h, plot_w = height - top - bottom, WIDTH - left - 16
    if log:
        low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
        high = max(high, low + 1)
        ticks = [10.0 ** e for e in range(low, high + 1)]

        def scale(v: float) -> float:
            return 0.0 if v <= 0 else (math.log10(v) - low) / (high - low)
    else:
        ticks = nice_ticks(max(values))

        def scale(v: float) -> float:
            return v / ticks[-1]
    body = _axes(left, top, plot_w, plot_h, [(scale(t), compact(t)) for t in ticks])
    body.append(f'<text x="14" y="{top + plot_h / 2:.0f}" transform="rotate(-90 14 {top + plot_h / 2:.0f})" '
                f'text-anchor="middle">{escape(y_label)}{" (log scale)" if log else ""}</text>')
    slot = plot_w / len(bars)
    bar = min(slot * 0.6, 96.0)
    for index, (label, value) in enumerate(bars):
        middle = left + (index + 0.5) * slot
        h = scale(value) * plot_h
        y = top + plot_h - h
        body.append(f'<rect x="{middle - bar / 2:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                    f'fill="{PALETTE[0]}"><title>{escape(label)}: {value:,.0f}</title></rect>')
        body.append(f'<text x="{middle:.1f}" y="{y - 4:.1f}" text-anchor="middle">{compact(value)}</text>')
        body.append(f'<text x="{middle:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{escape(label)}</text>')
    return _svg(title, height, body)


def _axes(left: int, top: int, width: float, height: float, ticks: Sequence[tuple[float, str]]) -> list[str]:
    """Horizontal grid lines with labels at fractions 0..1 of the height, and the axes."""
    out = []
    for fraction, label in ticks:
        y = top + height - fraction * height
        out.append(f'<line x1="{left}" x2="{left + width:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(label)}</text>')
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + height:.1f}" stroke="#333"/>')
    out.append(f'<line x1="{left}" x2="{left + width:.1f}" y1="{top + height:.1f}" y2="{top + height:.1f}" '
               'stroke="#333"/>')
    return out


def _legend(series: Sequence[str], x: float, y: float, first: int = 0, spacing: int = 110) -> list[str]:
    """Coloured swatches with names in one row; colour `first + i` for the i-th name."""
    out = []
    for index, name in enumerate(series):
        cx = x + index * spacing
        colour = PALETTE[(first + index) % len(PALETTE)]
        out.append(f'<rect x="{cx:.0f}" y="{y - 9:.0f}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{cx + 14:.0f}" y="{y:.0f}">{escape(name)}</text>')
    return out


def stacked_bars(title: str, rows: Sequence[tuple[str, Sequence[float]]], series: Sequence[str],
                 x_label: str) -> str:
    """Horizontal bars, one per row, each stacked from one segment per series."""
    totals = [sum(values) for _, values in rows]
    if not rows or max(totals) <= 0:
        return _none(title)
    left, row_h, top = 230, 18, 28
    plot_w = WIDTH - left - 56
    height = top + row_h * len(rows) + 44
    ticks = nice_ticks(max(totals))
    body = _legend(series, 8, 14, spacing=80)
    for tick in ticks:
        x = left + tick / ticks[-1] * plot_w
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + row_h * len(rows)}" stroke="#ddd"/>')
        body.append(f'<text x="{x:.1f}" y="{top + row_h * len(rows) + 14}" text-anchor="middle">'
                    f'{compact(tick)}</text>')
    body.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 8}" text-anchor="middle">{escape(x_label)}</text>')
    for index, (label, values) in enumerate(rows):
        y = top + index * row_h
        body.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{escape(label)}</text>')
        x = float(left)
        for number, value in enumerate(values):
            w = value / ticks[-1] * plot_w
            if w > 0:
                body.append(f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" '
                            f'fill="{PALETTE[number % len(PALETTE)]}"><title>{escape(label)}, '
                            f'{escape(series[number])}: {value:.2f}</title></rect>')
            x += w
        body.append(f'<text x="{x + 4:.1f}" y="{y + 13}">{compact(totals[index])}</text>')
    return _svg(title, height, body)


def line_chart(title: str, xs: Sequence[int], series: Sequence[tuple[str, Sequence[float | None]]],
               x_label: str, y_label: str) -> str:
    """One line per series over integer x values; a None value leaves a gap."""
    values = [v for _, ys in series for v in ys if v is not None]
    if not xs or not values:
        return _none(title)
    per_row = 3
    rows = (len(series) + per_row - 1) // per_row
    left, top, bottom = 64, 20 + 16 * rows, 44
    height = top + 200 + bottom
    plot_h, plot_w = height - top - bottom, WIDTH - left - 24
    ticks = nice_ticks(max(values))
    body = _axes(left, top, plot_w, plot_h, [(t / ticks[-1], compact(t)) for t in ticks])
    for row in range(rows):
        names = [name for name, _ in series[row * per_row:(row + 1) * per_row]]
        body += _legend(names, left, 14 + 16 * row, first=row * per_row, spacing=180)
    body.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 6}" text-anchor="middle">{escape(x_label)}</text>')
    body.append(f'<text x="14" y="{top + plot_h / 2:.0f}" transform="rotate(-90 14 {top + plot_h / 2:.0f})" '
                f'text-anchor="middle">{escape(y_label)}</text>')
    span = max(len(xs) - 1, 1)

    def point(index: int, value: float) -> tuple[float, float]:
        pad = 24  # keeps the first and last points off the axes
        x = left + pad + (index / span if len(xs) > 1 else 0.5) * (plot_w - 2 * pad)
        return x, top + plot_h - value / ticks[-1] * plot_h

    for index, x_value in enumerate(xs):
        x, _ = point(index, 0)
        body.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{x_value}</text>')
    for number, (name, ys) in enumerate(series):
        colour = PALETTE[number % len(PALETTE)]
        runs: list[list[tuple[float, float]]] = [[]]
        for index, value in enumerate(ys):
            if value is None:
                runs.append([])
                continue
            runs[-1].append(point(index, value))
            px, py = runs[-1][-1]
            body.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{colour}">'
                        f'<title>{escape(name)}, {xs[index]}: {value:g}</title></circle>')
        for run in runs:
            if len(run) > 1:
                points = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
                body.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
    return _svg(title, height, body)
