"""The command line as a user runs it: a real ``xtui`` process against the local exchange."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys

import pytest

from tui.api.signing import Signer
from tui.sim.server.local_exchange import LocalExchange

KEY = "0x" + "c3" * 32


async def xtui(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_info_prints_compact_json_when_piped(sim: LocalExchange) -> None:
    rc, out, err = await xtui("info", "orderbook", "symbol=BTC-PERP", "depth=2", "--url", sim.url)
    assert rc == 0 and err == ""
    assert out.count("\n") == 1 and json.loads(out)["instrument_name"] == "BTC-PERP"


async def test_exchange_signs_with_a_key_from_the_environment(sim: LocalExchange) -> None:
    rc, out, _ = await xtui("exchange", "cancelAll", "--key-env", "XTUI_K", "--url", sim.url, env={"XTUI_K": KEY})
    assert rc == 0 and json.loads(out)["address"] == Signer(KEY).address
    rc, out, _ = await xtui(
        "explorer", "transactions", "limit=5", f'filter={{"account": "{Signer(KEY).address}"}}', "--url", sim.url
    )
    assert rc == 0 and "transactions" in json.loads(out)


async def test_failures_are_one_line_on_stderr_with_exit_1(sim: LocalExchange) -> None:
    cases = [
        ("info", "no_such", "--url", sim.url),  # the server's 400
        ("exchange", "cancelAll", "--key-env", "XTUI_UNSET", "--url", sim.url),  # no key
        ("info", "ticker", "--url", "http://127.0.0.1:9"),  # nobody listening
    ]
    for args in cases:
        rc, out, err = await xtui(*args, env={"XTUI_K": KEY})
        assert rc == 1, args
        assert out == "" and err.startswith("xtui: ") and err.count("\n") == 1, (args, err)
        assert KEY[2:] not in err  # the key is never echoed


async def test_usage_errors_are_one_line_on_stderr_with_exit_2(sim: LocalExchange) -> None:
    """A command line xtui cannot act on: exit 2 (it was 1, as a failure) and one line naming the help to read."""
    cases = [
        (("info", "ticker"), "xtui info: error: no exchange given"),
        (("exchange", "transferAll", "--key-env", "XTUI_K", "--url", sim.url), "xtui exchange: error: unknown action"),
        (("info", "ticker", "badpair", "--url", sim.url), "xtui info: error: expected key=value, got 'badpair'"),
    ]
    for args, said in cases:
        rc, out, err = await xtui(*args, env={"XTUI_K": KEY})
        assert rc == 2, args
        assert out == "" and err.startswith(said) and err.count("\n") == 1, (args, err)
        assert err.endswith(f" (xtui {args[0]} --help)\n") and KEY[2:] not in err
    # a key on the command line: refused before any parser reads it, the key never echoed
    rc, out, err = await xtui("exchange", "cancelAll", "--key", KEY, "--url", sim.url)
    assert (rc, out) == (2, "") and err.startswith("xtui: error: --key is refused: use --key-env VAR")
    assert err.count("\n") == 1 and err.endswith(" (xtui --help)\n") and KEY[2:] not in err


async def test_rejected_action_is_a_failure(sim: LocalExchange) -> None:
    rc, _, err = await xtui(
        "exchange", "cancelByInstrument", "instrumentId=77", "--key-env", "XTUI_K", "--url", sim.url,
        env={"XTUI_K": KEY},
    )  # fmt: skip
    assert rc == 1 and "77" in err


async def test_exchange_types_values_as_the_action_needs(sim: LocalExchange) -> None:
    env = {"XTUI_K": KEY}
    # amount is a decimal string on the wire: a bare 10 is sent as "10"; collateralId an integer, the flag a boolean
    rc, out, err = await xtui(
        "exchange", "internalBalanceTransferRequest", "collateralId=1", "amount=10", "toDerivativesAccount=false",
        "--key-env", "XTUI_K", "--url", sim.url, env=env,
    )  # fmt: skip
    assert rc == 0 and json.loads(out)["error"] == "", err
    order = '[{"instrumentId": 1, "side": "b", "price": 95000, "size": 0.01, "tif": "GTC"}]'  # bare numbers
    rc, out, err = await xtui(
        "exchange", "placeOrder", f"orders={order}", "--key-env", "XTUI_K", "--url", sim.url, env=env
    )
    assert rc == 0 and json.loads(out)["error"] == "", err
    rc, out, err = await xtui(
        "exchange", "internalBalanceTransferRequest", "collateralId=one", "amount=10", "toDerivativesAccount=false",
        "--key-env", "XTUI_K", "--url", sim.url, env=env,
    )  # fmt: skip
    assert rc == 2 and out == "" and err.startswith("xtui exchange: error: collateralId: a whole number"), err
    assert err.count("\n") == 1


async def test_bench_measures_one_group_or_refuses_an_unknown_one() -> None:
    """Tried: ``--only signing`` (quick), and ``--only nope``: the choices are named, nothing is measured."""
    code, out, _ = await xtui("bench", "--quick", "--only", "signing")
    assert code == 0 and "sign" in out and "decode" not in out
    code, out, err = await xtui("bench", "--only", "nope")
    assert code == 2 and out == "" and "invalid choice: 'nope'" in err and "signing" in err


async def test_the_fan_out_figure_counts_every_frame_a_real_exchange_sends() -> None:
    """``xtui bench --quick --only fanout``: an ``xtui sim`` process, 50 lean subscribers, signed orders; a
    round that missed a frame would wait its 30 s deadline and report a rate below what was sent."""
    code, out, _ = await xtui("bench", "--quick", "--only", "fanout")
    [line] = [line for line in out.splitlines() if line.startswith("WS fan-out to 50 subscribers")]
    assert code == 0 and float(line.split()[-5].replace(",", "")) > 1_000


@pytest.mark.long
async def test_the_server_figures_say_the_client_s_share_of_the_lean_writer() -> None:
    """``xtui bench --quick --only server``: the xtui client's signed orders a second, the lean writer's, and the
    first as a share of the second, which is what the issue's goal (>= 60%) is set on."""
    code, out, _ = await xtui("bench", "--quick", "--only", "server")

    def figure(start: str) -> float:
        [line] = [line[len(start) :] for line in out.splitlines() if line.startswith(start)]
        return float(re.findall(r"\d[\d,]*\.\d", line)[0].replace(",", ""))  # the figure: one decimal

    client = figure("signed placeOrder, xtui client")
    lean = figure("signed placeOrder round trips, loopback")
    share = figure("  xtui client as a share of the lean writer")
    assert code == 0 and client > 0 and lean > 0 and abs(share - client / lean * 100) < 0.2


def test_every_bench_group_is_named_for_the_command_line() -> None:
    from tui.bench import GROUPS
    from tui.bench.figures import _groups  # private: running each group to see it named would take minutes

    assert tuple(_groups(1, quick=True)) == GROUPS


async def test_version_is_the_package_version() -> None:
    """``xtui --version`` prints the version pyproject.toml gives the package, and exits 0."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    rc, out, _ = await xtui("--version")
    assert (rc, out) == (0, f"xtui {project['version']}\n")


def test_constraints_pin_every_range_inside_it() -> None:
    """CI installs with constraints.txt: each dependency pyproject.toml names is pinned there, inside its range."""
    import re
    import tomllib
    from pathlib import Path

    from packaging.requirements import Requirement

    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    pins = dict(
        re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line).groups()  # type: ignore[union-attr]
        for line in (root / "constraints.txt").read_text().splitlines()
        if line and not line.startswith("#")
    )
    norm = {re.sub(r"[-_.]+", "-", k).lower(): v for k, v in pins.items()}
    for text in [*project["dependencies"], *project["optional-dependencies"]["dev"]]:
        req = Requirement(text)
        pinned = norm.get(re.sub(r"[-_.]+", "-", req.name).lower())
        assert pinned is not None and req.specifier.contains(pinned), f"{text}: constraints.txt has {pinned}"


async def test_the_startup_figure_gives_the_median_and_the_first_start_with_their_goals() -> None:
    """``xtui bench --quick --only startup``: one real start in a pty and one headless, beside the framework's floor
    (a minimal Textual app's first frame) and xtui over it, the issue's goal (1.25x); the first start (as after an
    install) is a line of its own, its goal 500 ms."""
    code, out, _ = await xtui("bench", "--quick", "--only", "startup")
    lines = out.splitlines()
    [median] = [line for line in lines if line.startswith("start to first full frame")]
    [first] = [line for line in lines if line.strip().startswith("the first of them")]
    [floor] = [line for line in lines if line.strip().startswith("the floor: a minimal Textual app")]
    [over] = [line for line in lines if line.strip().startswith("xtui over the floor")]
    assert code == 0 and median.endswith("(target <= 1.25x the floor)") and first.endswith("(target <= 500 ms)")
    assert over.endswith("(target <= 1.25)") and float(floor.split()[-2].replace(",", "")) > 0
    assert float(first.split()[-6].replace(",", "")) > 0  # the figure, before its unit and target
