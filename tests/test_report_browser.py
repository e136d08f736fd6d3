"""report.html in a real headless browser: it loads from a file with no network, and the
screenshot shows the verdict colours and the charts (skipped where chromium is absent;
CI installs it in .ci/run)."""

from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import pytest

from report_samples import RUN, sample_results
from verify.report import write_report

BROWSER = next((name for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no chromium on PATH: install it with "
                                "`apt-get install -y chromium` (.ci/run does) to check report.html in a browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

NOT_AS_EXPECTED = (0xFB, 0xD5, 0xD5)
PROVED = (0xD8, 0xF0, 0xDC)
WITNESS = (0xD6, 0xE9, 0xF8)
CHART_BLUE = (0x00, 0x72, 0xB2)


def browser(*args: str) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([BROWSER, *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120, check=False)


def png_rows(path: Path) -> tuple[int, int, list[set[tuple[int, int, int]]]]:
    """Width, height and each row's set of colours of an 8-bit RGB(A) non-interlaced PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, header = 8, [], b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, "an unexpected PNG layout"
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    previous = bytearray(stride)
    rows: list[set[tuple[int, int, int]]] = []
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append({(line[i], line[i + 1], line[i + 2]) for i in range(0, stride, channels)})
        previous = line
    return width, height, rows


def png_pixels(path: Path) -> tuple[int, int, set[tuple[int, int, int]]]:
    """Width, height and the set of colours of an 8-bit RGB(A) non-interlaced PNG."""
    width, height, rows = png_rows(path)
    return width, height, set().union(*rows)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("html")
    write_report(sample_results(), directory, RUN)
    return directory / "report.html"


def test_the_browser_renders_the_page_and_its_charts(page: Path) -> None:
    done = browser("--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert "<h1>shrules: the standard rules</h1>" in dom
    assert dom.count("<svg") == 3 and "<polyline" in dom and "<rect" in dom
    assert 'id="trace-nominee_eligible-5"' in dom


def test_the_screenshot_shows_the_verdict_colours_and_the_charts(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    done = browser(f"--screenshot={shot}", "--window-size=1280,2000", page.as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    width, height, colours = png_pixels(shot)
    assert (width, height) == (1280, 2000)
    for name, colour in (("not as expected", NOT_AS_EXPECTED), ("proved", PROVED), ("witness", WITNESS),
                         ("chart bars", CHART_BLUE)):
        assert colour in colours, f"no {name} colour {colour} in the screenshot"
