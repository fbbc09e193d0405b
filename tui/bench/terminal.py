"""What the default run costs over SSH: bytes written to the terminal a second, and CPU of the whole process
(with its built-in exchange, a child process).

``xtui`` (no profile: the built-in exchange in a child process) runs in a real pseudo-terminal of the
given size, as a trader's shell would run it; after a warm-up, everything it writes is read and counted
for ``seconds``, and the CPU it and its children used (user + system, every thread, from /proc) is divided
by the wall time.

Bytes are attributed to panes: the compositor writes each changed run of cells after a cursor move
(``ESC [ row ; col H``), so each run is charged to the pane whose region holds its first cell. The regions
come from the same layout drawn headless at the same size (``pane_regions``).
"""

from __future__ import annotations

import compileall
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .sim_load import rss_mb

__all__ = [
    "SIDE_BY_SIDE",
    "TerminalCost",
    "children",
    "measure_default_run",
    "pane_regions",
    "side_by_side_layouts",
    "start_to_full_frame",
]

SEED = 7  # the same market every run, so that two runs' figures compare
MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")
Region = tuple[str, int, int, int, int]  # pane id, x, y, width, height
PANES = ("header", "markets", "book", "tape", "chart", "positions", "orders-tabs", "account", "status")
# the screens a key opens over the dashboard (``--keys``): their parts, charged as the dashboard's panes are
SCREEN_PARTS = ("ladder-header", "ladder-line", "ladder", "ladder-keys", "heatmap-header", "heatmap")


# the palette's "markets side by side" on the built-in exchange: three markets a column each (ticker, chart, book),
# the positions and the open orders across the bottom (``tui.ui.layouts.side_by_side``)
SIDE_BY_SIDE = ("BTC-PERP", "ETH-PERP", "SOL-PERP")


def side_by_side_layouts(path: Path, symbols: tuple[str, ...] = SIDE_BY_SIDE) -> Path:
    """A layouts file at ``path`` whose first layout lays ``symbols`` side by side, as the palette does."""
    import json

    n = len(symbols)
    panes = [{"pane": kind, "row": row, "col": col, "instrument": s} for col, s in enumerate(symbols)
             for row, kind in enumerate(("ticker", "chart", "book"))]  # fmt: skip
    panes += [{"pane": "positions", "row": 3, "col": 0, "cols": n - 1}, {"pane": "orders", "row": 3, "col": n - 1}]
    layout = {"name": "side by side", "columns": ["1fr"] * n, "rows": [4, "1fr", "1fr", 6], "panes": panes}
    path.write_text(json.dumps({"layouts": [layout]}))
    return path


@dataclass
class TerminalCost:
    seconds: float
    bytes: int
    cpu_s: float
    by_pane: Counter[str] = field(default_factory=Counter)
    rss_mb: float = 0.0  # resident memory at the end: the dashboard's process
    exchange_rss_mb: float = 0.0  # and its built-in exchange's

    @property
    def bytes_per_s(self) -> float:
        return self.bytes / self.seconds

    @property
    def cpu_pct(self) -> float:
        return 100 * self.cpu_s / self.seconds


def _stat(pid: int | str) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (the built-in exchange runs in one)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if _stat(entry.name)[1] == str(pid):  # field 4 of stat, the parent's pid
                    found.append(int(entry.name))
    return found


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` (all its threads) and of its children, as far as they are running."""
    ticks = 0
    for each in (pid, *children(pid)):
        with contextlib.suppress(OSError):
            fields = _stat(each)
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _charge(chunk: bytes, regions: list[Region], by_pane: Counter[str], at: list[int]) -> None:
    """Charge the bytes of ``chunk`` to panes by where the cursor was moved before them (``at``: x, y)."""
    pos = 0
    for m in MOVE.finditer(chunk):
        by_pane[_pane_at(regions, at[0], at[1])] += m.start() - pos
        at[1], at[0] = int(m.group(1)) - 1, int(m.group(2)) - 1
        pos = m.start()
    by_pane[_pane_at(regions, at[0], at[1])] += len(chunk) - pos


def _pane_at(regions: list[Region], x: int, y: int) -> str:
    for name, rx, ry, w, h in regions:
        if rx <= x < rx + w and ry <= y < ry + h:
            return name
    return "other"


def pane_regions(size: tuple[int, int], keys: str = "") -> list[Region]:
    """Where each pane of the dashboard sits at ``size``: the layout drawn headless on a local exchange; after
    ``keys`` are pressed (one character a key: ``D`` opens the ladder), the parts of the screen they open."""
    import asyncio

    from tui.api.client import Client
    from tui.sim.embedded import EmbeddedExchange
    from tui.ui.app import make_app

    async def run(url: str) -> list[Region]:
        client = Client(url)
        app = make_app(client, url.replace("http://", "ws://", 1) + "/ws/", None, account=None)
        async with app.run_test(size=size) as pilot:
            await pilot.pause(0.5)
            await pilot.press(*keys)
            await pilot.pause(0.5)
            out: list[Region] = []
            for name in (*SCREEN_PARTS, *PANES) if keys else PANES:
                with contextlib.suppress(Exception):
                    r = app.screen.query_one(f"#{name}").region
                    out.append((name, r.x, r.y, r.width, r.height))
            footer = app.screen.query_one("Footer").region
            out.append(("footer", footer.x, footer.y, footer.width, footer.height))
        await client.aclose()
        return out

    with EmbeddedExchange() as exchange:
        return asyncio.run(run(exchange.url))


@contextlib.contextmanager
def _xtui_in_pty(
    size: tuple[int, int], extra_args: tuple[str, ...] = (), cache: Path | None = None, layouts: Path | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``xtui`` (a fresh home: no profile, so the built-in exchange) in a pty of ``size``; (process, pty fd).
    ``cache``: the cache directory (what an earlier start kept); none: a fresh one, as at the first start.
    ``layouts``: a layouts file the built-in profile starts with (``Y`` shows its first layout)."""
    cols, rows = size
    with tempfile.TemporaryDirectory(prefix="xtui-bench-") as home:
        if layouts is not None:
            Path(home, "data").mkdir()
            Path(home, "data", "layouts-local.json").write_bytes(layouts.read_bytes())
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "XTUI_DATA_DIR": f"{home}/data",
            "XTUI_CONFIG": f"{home}/config.toml",
            "XTUI_LOG_DIR": f"{home}/log",
            "XTUI_CACHE_DIR": str(cache) if cache is not None else f"{home}/cache",
            "COLUMNS": str(cols),
            "LINES": str(rows),
        }
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        proc = subprocess.Popen(
            [sys.executable, "-m", "tui", "--seed", str(SEED), *extra_args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        try:
            yield proc, master
        finally:
            exchange = children(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            _wait_ended(exchange)
            os.close(master)


def _wait_ended(pids: list[int], timeout: float = 10.0) -> None:
    """Until ``pids`` have ended. The built-in exchange stops ~0.2 s after its dashboard is killed (its stdin
    closes): a run started meanwhile shared the machine with it, ~25 ms more to the first frame run after run."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        running = []
        for pid in pids:
            with contextlib.suppress(OSError, IndexError):
                if _stat(str(pid))[0] != "Z":  # ended, not reaped yet: as good as gone
                    running.append(pid)
        if not running:
            return
        time.sleep(0.01)


# typed into the default run once it is live (``measure_default_run(..., trade=True)``), each with the pause after
# it: sell 0.01 at the best bid (filled: a short, its entry line and a fill mark), then pick the book's 18th row (a
# bid a few ticks under the best) and buy 0.05 there (a resting order's line)
DOWN = b"\x1b[B"
# the resting buy is smaller than the short: one that could reverse the position is asked about (a dialog stays)
TRADE_KEYS = ((b"s", 1.0), (b"0.01", 0.3), (b"\r", 2.0), (b"2", 0.3), *((DOWN, 0.05),) * 18, (b"b", 1.0),
              (b"0.005", 0.3), (b"\r", 2.0))  # fmt: skip


def measure_default_run(
    seconds: float,
    size: tuple[int, int] = (160, 48),
    warmup: float = 8.0,
    extra_args: tuple[str, ...] = (),
    *,
    trade: bool = False,
    layouts: Path | None = None,
    keys: str = "",
) -> TerminalCost:
    """Run ``xtui`` in a pty of ``size`` (columns, rows) and measure what it writes and burns for ``seconds``
    (``trade``: after half the warm-up, type ``TRADE_KEYS``: a position and a resting order, drawn on the chart).
    ``layouts``: a layouts file; half-way through the warm-up ``Y`` shows its first layout, which is measured
    (its bytes charged to "layout", not to the dashboard's panes). ``keys`` are typed halfway through the warm-up
    (``D``: measure with the ladder shown)."""
    regions = pane_regions(size, keys) if layouts is None else [("layout", 0, 0, size[0], size[1])]
    with _xtui_in_pty(size, extra_args, layouts=layouts) as (proc, master):
        if trade or layouts is not None or keys:
            _drain(master, warmup / 2, None, None)
            warmup /= 2
        if trade:
            for key, pause in TRADE_KEYS:
                os.write(master, key)
                _drain(master, pause, None, None)  # the form opens before the size is typed
        if layouts is not None:
            os.write(master, b"Y")
        if keys:
            os.write(master, keys.encode())
        _drain(master, warmup, None, None)
        cpu0 = _cpu_s(proc.pid)
        by_pane: Counter[str] = Counter()
        t0 = time.perf_counter()
        total = _drain(master, seconds, regions, by_pane)
        elapsed = time.perf_counter() - t0
        cpu = _cpu_s(proc.pid) - cpu0
        exchange = sum(rss_mb(child) for child in children(proc.pid))
        return TerminalCost(elapsed, total, cpu, by_pane, rss_mb(proc.pid), exchange)


# what the first full frame has drawn: the feed live, the book around its spread, the account's equity, the
# chart's title over its candles, the footer's keys and the header's funding countdown (the last three were
# once a frame or two behind the rest)
FULL_FRAME = (b"live", b"spread", b"Equity", b"Chart ", b"Quit", b"funding")


def compile_sources() -> None:
    """Byte-compile xtui's modules, as any start after the first finds them: an environment that writes no
    byte-code (PYTHONDONTWRITEBYTECODE, set on some CI machines) would otherwise time the compiler too."""
    compileall.compile_dir(str(Path(__file__).resolve().parents[1]), quiet=1)


def start_to_full_frame(size: tuple[int, int] = (160, 48), timeout: float = 30.0, cache: Path | None = None) -> float:
    """Seconds from launching ``xtui`` (interpreter start included) to the terminal showing the whole dashboard
    (``FULL_FRAME``: the feed live, the book, the account, the chart, the footer's keys): what a trader waits for.

    ``cache``: the cache directory to start with (none: an empty one)."""
    compile_sources()
    launched = time.perf_counter()
    with _xtui_in_pty(size, cache=cache) as (_, master):
        _read_to_full_frame(master, launched + timeout)
        return time.perf_counter() - launched


def output_to_full_frame(size: tuple[int, int] = (160, 48), timeout: float = 30.0, then_s: float = 0.5) -> bytes:
    """What ``xtui`` writes to its terminal from its start until the full frame (``FULL_FRAME``) is out, and for
    ``then_s`` after (the rest of the frame that showed the last mark, and what followed)."""
    with _xtui_in_pty(size) as (_, master):
        out = _read_to_full_frame(master, time.perf_counter() + timeout)
        end = time.perf_counter() + then_s
        while (left := end - time.perf_counter()) > 0:
            ready, _, _ = select.select([master], [], [], left)
            if ready and not (chunk := os.read(master, 65536)):
                break
            if ready:
                out += chunk
        return out


def _read_to_full_frame(master: int, deadline: float) -> bytes:
    out = bytearray()
    found: set[bytes] = set()
    seen_to = 0  # marks are looked for from 16 bytes before the new data: one split across two reads is found
    while len(found) < len(FULL_FRAME):
        left = deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError("xtui drew no full frame in time")
        ready, _, _ = select.select([master], [], [], left)
        if not ready:
            continue
        chunk = os.read(master, 65536)
        if not chunk:
            raise RuntimeError("xtui ended before its first full frame")
        out += chunk
        window = bytes(out[max(0, seen_to - 16) :])
        found.update(mark for mark in FULL_FRAME if mark in window)
        seen_to = len(out)
    return bytes(out)


def _drain(fd: int, seconds: float, regions: list[Region] | None, by_pane: Counter[str] | None) -> int:
    """Read ``fd`` for ``seconds``; the bytes read (charged to panes when ``regions`` is given)."""
    end = time.perf_counter() + seconds
    total = 0
    at = [0, 0]
    while (left := end - time.perf_counter()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        total += len(chunk)
        if regions is not None and by_pane is not None:
            _charge(chunk, regions, by_pane, at)
    return total


def main() -> None:
    # python -m tui.bench.terminal [--trade] [SECONDS] [COLSxROWS] [--layouts FILE | --side-by-side] [--keys KEYS]
    # [-- xtui args]
    args = sys.argv[1:]
    extra: tuple[str, ...] = ()
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], tuple(args[i + 1 :])
    trade = "--trade" in args
    args = [a for a in args if a != "--trade"]
    layouts = None
    if "--layouts" in args:
        i = args.index("--layouts")
        layouts = Path(args[i + 1])
        del args[i : i + 2]
    side = "--side-by-side" in args  # the layout of three markets side by side (SIDE_BY_SIDE)
    args = [a for a in args if a != "--side-by-side"]
    keys = ""
    if "--keys" in args:  # typed once the dashboard is up: --keys D measures with the ladder shown
        i = args.index("--keys")
        keys, args = args[i + 1], args[:i] + args[i + 2 :]
    seconds = float(args[0]) if args else 20.0
    cols, rows = (int(v) for v in (args[1] if len(args) > 1 else "160x48").split("x"))
    with tempfile.TemporaryDirectory(prefix="xtui-bench-layouts-") as folder:
        if side:
            layouts = side_by_side_layouts(Path(folder, "layouts.json"))
        cost = measure_default_run(seconds, (cols, rows), extra_args=extra, trade=trade, layouts=layouts, keys=keys)
    said = " with a position and a resting order" if trade else ""
    print(f"{cost.bytes_per_s:,.0f} B/s  cpu {cost.cpu_pct:.1f}%  over {cost.seconds:.1f}s at {cols}x{rows}{said}")
    print(f"resident memory: dashboard {cost.rss_mb:.1f} MB, its exchange {cost.exchange_rss_mb:.1f} MB")
    for name, n in cost.by_pane.most_common():
        print(f"  {name:<12} {n / cost.seconds:>10,.0f} B/s")


if __name__ == "__main__":
    main()
