"""The signing scheme of protocol-notes section 2, checked against its test vector and eth-account."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.api import signing
from tui.api.signing import Signer, SigningError, recover_signer, sign_action

KEY = "0x" + "11" * 32
ADDRESS = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"
DATA = {"cancels": [{"oid": 123, "instrumentId": 1}], "expiresAfter": 1700003600000, "nonce": 1700000000000}
MAINNET_SIG = (
    "0xf877927f69e4fcf037aca15f4f14c421406110ecebbc04c0c50facfd829334b2"
    "0902e79a2c3c551dbb00c979c5f42c35f5753d9677acac777f6407aeb7cb968f1c"
)
TESTNET_SIG = (
    "0x4f5ffc3f1d909b5e82cdc2351531373b1f6856294d6fbeb6784f2185c770d264"
    "085cdf38a9d8a009efa46a11a510248a2e323ac9bfb100f75058fad3a9441e301b"
)


def test_vector_intermediate_values() -> None:
    packed = signing.pack(DATA)
    assert packed.hex() == (
        "83a763616e63656c739182a36f69647bac696e737472756d656e74496401ac657870697265734166746572"
        "cf0000018bd01c5680a56e6f6e6365cf0000018bcfe56800"
    )
    assert signing.keccak256(packed).hex() == "5f6156cd288fce16e7b4b37fac2ccc9005a0d0c1b40d747e1e7dfeb8f542b2d1"
    assert signing.DOMAIN_SEPARATOR.hex() == "a16e6a59c7254da6bad655498b2a0f7a2f80a0a117248db55871a08489e57f5f"
    assert signing.ACTION_TYPEHASH.hex() == "cf6e2a67b26db47db900990b482959f766a5b83c9089f3fedf2012b2726379df"
    assert signing.action_digest(DATA, 1302).hex() == "4243683209479466655862ebbd5092fff8e86f394b97ec13faf2b87d698ae68a"
    assert (
        signing.action_digest(DATA, 1302, testnet=True).hex()
        == "9df2f41803ef7941c7745c797f855c83486d4412c3050c28065db1fb39bf8ca7"
    )


def test_vector_signatures() -> None:
    assert signing.address_of(KEY) == ADDRESS
    assert sign_action(KEY, DATA, 1302) == MAINNET_SIG
    assert sign_action(KEY, DATA, 1302, testnet=True) == TESTNET_SIG
    assert len(MAINNET_SIG) == 132


def test_key_order_changes_the_hash() -> None:
    reordered = {
        "nonce": 1700000000000,
        "cancels": [{"instrumentId": 1, "oid": 123}],
        "expiresAfter": 1700003600000,
    }
    assert signing.keccak256(signing.pack(reordered)).hex().startswith("56809bc2")


def test_recover_round_trip_and_forms() -> None:
    assert recover_signer(DATA, 1302, MAINNET_SIG) == ADDRESS
    assert recover_signer(DATA, 1302, TESTNET_SIG, testnet=True) == ADDRESS
    assert recover_signer(DATA, 1302, MAINNET_SIG[2:]) == ADDRESS  # without 0x
    v01 = MAINNET_SIG[:-2] + format(int(MAINNET_SIG[-2:], 16) - 27, "02x")
    assert recover_signer(DATA, 1302, v01) == ADDRESS  # v as 0/1
    # the wrong network or tx type recovers somebody else, never the signer
    assert recover_signer(DATA, 1302, MAINNET_SIG, testnet=True) != ADDRESS
    assert recover_signer(DATA, 1301, MAINNET_SIG) != ADDRESS


def test_agrees_with_eth_account_typed_data() -> None:
    from eth_account import Account
    from eth_account.messages import encode_typed_data

    msg = {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "Action": [
                {"name": "source", "type": "string"},
                {"name": "hash", "type": "bytes32"},
                {"name": "txType", "type": "uint16"},
            ],
        },
        "primaryType": "Action",
        "domain": {
            "name": "HotstuffCore",
            "version": "1",
            "chainId": 1,
            "verifyingContract": "0x1234567890123456789012345678901234567890",
        },
        "message": {"source": "Testnet", "hash": signing.keccak256(signing.pack(DATA)), "txType": 1303},
    }
    signed = Account.sign_message(encode_typed_data(full_message=msg), KEY)
    assert sign_action(KEY, DATA, 1303, testnet=True) == "0x" + bytes(signed.signature).hex()


@pytest.mark.parametrize(
    "bad",
    ["", "0x", "zz" * 65, "0x" + "00" * 64, "0x" + "11" * 64 + "05", "0x" + "00" * 65],
)
def test_bad_signatures_raise_signing_error(bad: str) -> None:
    with pytest.raises(SigningError):
        recover_signer(DATA, 1302, bad)


@pytest.mark.parametrize("bad", ["", "0x1234", "nothex" * 11, "0x" + "00" * 32, "0x" + "ff" * 32])
def test_bad_keys_raise_without_echoing_the_key(bad: str) -> None:
    with pytest.raises(SigningError) as err:
        Signer(bad)
    if len(bad) > 6:
        assert bad[2:10] not in str(err.value)


def test_signer_repr_hides_the_key() -> None:
    s = Signer(KEY)
    assert "1111" not in repr(s) and ADDRESS in repr(s)


def test_checksum_address() -> None:
    assert signing.checksum_address(ADDRESS.lower()) == ADDRESS
    assert signing.is_checksum_address(ADDRESS)
    assert signing.is_checksum_address(ADDRESS.lower())
    assert not signing.is_checksum_address(ADDRESS[:-1] + "a")
    assert not signing.is_checksum_address("0x1234")


@settings(max_examples=40, deadline=None)
@given(
    st.binary(min_size=32, max_size=32),
    st.integers(0, 65535),
    st.booleans(),
    st.dictionaries(st.text(max_size=8), st.integers(-(2**63), 2**64 - 1) | st.text(max_size=20), max_size=5),
)
def test_any_key_signs_and_recovers(secret: bytes, tx: int, testnet: bool, data: dict) -> None:
    try:
        s = Signer(secret)
    except SigningError:
        return  # zero or >= curve order
    assert recover_signer(data, tx, s.sign_action(data, tx, testnet=testnet), testnet=testnet) == s.address
