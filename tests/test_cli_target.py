"""The target flags (--url | --testnet | --mainnet, --network) read alike in every command that takes them."""

from __future__ import annotations

import pytest

from tui.cli.main import build_parser

# the words before the flags: the dashboard (no command) and each command that points at an exchange
COMMANDS = [[], ["info", "ticker"], ["explorer", "blocks"], ["exchange", "cancelAll", "--key-env", "K"],
            ["doctor"], ["export", "fills"]]  # fmt: skip


@pytest.mark.parametrize("words", COMMANDS, ids=lambda w: w[0] if w else "dashboard")
def test_each_command_takes_one_exchange_and_a_network(words: list[str]) -> None:
    """Each command is given --url, --testnet or --mainnet with --network: the one given is read, and
    --network is one of the two networks."""
    parse = build_parser().parse_args
    args = parse([*words, "--url", "http://127.0.0.1:1", "--network", "mainnet"])
    assert (args.url, args.testnet, args.mainnet, args.network) == ("http://127.0.0.1:1", False, False, "mainnet")
    args = parse([*words, "--testnet"])
    assert (args.url, args.testnet, args.mainnet, args.network) == (None, True, False, None)
    assert parse([*words, "--mainnet"]).mainnet is True


@pytest.mark.parametrize(
    "extra",
    [["--url", "http://127.0.0.1:1", "--testnet"], ["--testnet", "--mainnet"], ["--network", "devnet"]],
    ids=["url-and-testnet", "testnet-and-mainnet", "unknown-network"],
)
@pytest.mark.parametrize("words", COMMANDS, ids=lambda w: w[0] if w else "dashboard")
def test_each_command_refuses_two_exchanges_or_an_unknown_network(
    words: list[str], extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Two exchanges at once, or a network that is neither testnet nor mainnet: argparse refuses it in words
    (exit 2) in every command alike."""
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([*words, *extra])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "not allowed with argument" in err or "invalid choice: 'devnet'" in err
