"""Action signing: msgpack -> keccak -> EIP-712 digest -> secp256k1 (protocol-notes section 2).

The EIP-712 domain and the ``Action`` type hash are constant, so they are computed once at import.
The digest is signed with coincurve directly: ``eth_account`` costs ~0.5 s to import and ~230 us a
signature, and stays off this path.
"""

from __future__ import annotations

import functools
from typing import Any

import coincurve
import msgspec
import sha3

__all__ = [
    "Signer",
    "SigningError",
    "action_digest",
    "address_of",
    "checksum_address",
    "is_checksum_address",
    "keccak256",
    "recover_signer",
    "sign_action",
]

DOMAIN_NAME = "HotstuffCore"
DOMAIN_VERSION = "1"
DOMAIN_CHAIN_ID = 1
VERIFYING_CONTRACT = "0x1234567890123456789012345678901234567890"


class SigningError(ValueError):
    """A key, signature or address that cannot be used. The message never contains key material."""


def keccak256(data: bytes) -> bytes:
    """The Ethereum keccak-256 hash (not NIST SHA3-256)."""
    digest: bytes = sha3.keccak_256(data).digest()
    return digest


def _word(n: int) -> bytes:
    return n.to_bytes(32, "big")


_DOMAIN_TYPEHASH = keccak256(b"EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
DOMAIN_SEPARATOR = keccak256(
    _DOMAIN_TYPEHASH
    + keccak256(DOMAIN_NAME.encode())
    + keccak256(DOMAIN_VERSION.encode())
    + _word(DOMAIN_CHAIN_ID)
    + bytes(12)
    + bytes.fromhex(VERIFYING_CONTRACT[2:])
)
ACTION_TYPEHASH = keccak256(b"Action(string source,bytes32 hash,uint16 txType)")
_SOURCE_HASH = {False: keccak256(b"Mainnet"), True: keccak256(b"Testnet")}
_DIGEST_PREFIX = b"\x19\x01" + DOMAIN_SEPARATOR


# msgspec's msgpack writes what the SDKs' msgpack.packb(use_bin_type=True) writes, byte for byte
# (tests/api/test_pack.py), and maps types as the JSON body's encoder does.
_pack = msgspec.msgpack.Encoder().encode


def pack(data: Any) -> bytes:
    """msgpack with map keys in insertion order, exactly as the exchange hashes them."""
    return _pack(data)


def action_digest(data: Any, tx_type: int, *, testnet: bool = False) -> bytes:
    """The 32-byte EIP-712 digest that is signed for ``data`` (the action's ``data`` object)."""
    if not 0 <= tx_type < 1 << 16:
        raise SigningError(f"tx_type {tx_type} does not fit uint16")
    struct_hash = keccak256(ACTION_TYPEHASH + _SOURCE_HASH[testnet] + keccak256(pack(data)) + _word(tx_type))
    return keccak256(_DIGEST_PREFIX + struct_hash)


@functools.lru_cache(maxsize=4096)
def checksum_address(address: str | bytes) -> str:
    """EIP-55 form of a 20-byte address given as bytes or hex (with or without 0x, any case). Kept for the
    last few thousand addresses: the exchange checksums the signer of every action (~8% of its time at
    2,000 orders a second)."""
    if isinstance(address, bytes):
        if len(address) != 20:
            raise SigningError("an address is 20 bytes")
        hex_addr = address.hex()
    else:
        hex_addr = address[2:] if address[:2] in ("0x", "0X") else address
        hex_addr = hex_addr.lower()
        if len(hex_addr) != 40 or any(c not in "0123456789abcdef" for c in hex_addr):
            raise SigningError(f"not an address: {address!r}")
    h = keccak256(hex_addr.encode()).hex()
    return "0x" + "".join(c.upper() if int(h[i], 16) >= 8 else c for i, c in enumerate(hex_addr))


def is_checksum_address(address: str) -> bool:
    """True if ``address`` is a well-formed address whose letter case matches EIP-55 (or is all one case)."""
    try:
        good = checksum_address(address)
    except SigningError:
        return False
    body = address[2:]
    return address == good or body == body.lower() or body == body.upper()


def _address_of_pubkey(pub: coincurve.PublicKey) -> str:
    return checksum_address(keccak256(pub.format(compressed=False)[1:])[-20:])


def _hex_bytes(text: str, what: str) -> bytes:
    """``text`` (0x or not) as bytes; SigningError, naming ``what``, when it is not hex."""
    text = text[2:] if text[:2] in ("0x", "0X") else text
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise SigningError(f"{what} is not hex") from None


def _secret_bytes(private_key: str | bytes) -> bytes:
    raw = private_key if isinstance(private_key, bytes) else _hex_bytes(private_key.strip(), "private key")
    if len(raw) != 32:
        raise SigningError("private key must be 32 bytes")
    return raw


class Signer:
    """A private key held in memory, ready to sign. Its repr never shows the key."""

    __slots__ = ("_key", "address")

    def __init__(self, private_key: str | bytes) -> None:
        try:
            self._key = coincurve.PrivateKey(_secret_bytes(private_key))
        except SigningError:
            raise
        except Exception:
            raise SigningError("private key is out of range for secp256k1") from None
        self.address: str = _address_of_pubkey(self._key.public_key)

    @classmethod
    def generate(cls) -> Signer:
        """A fresh random key."""
        return cls(coincurve.PrivateKey().secret)

    def __repr__(self) -> str:
        return f"Signer({self.address})"

    def secret_hex(self) -> str:
        """The key as 0x-hex, for writing into an encrypted keystore only."""
        return "0x" + self._key.secret.hex()

    def sign_digest(self, digest: bytes) -> str:
        """Sign a 32-byte digest: ``0x`` + r + s + v with v in {27, 28}."""
        sig = self._key.sign_recoverable(digest, hasher=None)
        return "0x" + sig[:64].hex() + format(sig[64] + 27, "02x")

    def sign_action(self, data: Any, tx_type: int, *, testnet: bool = False) -> str:
        """Sign an action's ``data`` object (nonce included, keys in the order they are sent)."""
        return self.sign_digest(action_digest(data, tx_type, testnet=testnet))


def sign_action(private_key: str | bytes | Signer, data: Any, tx_type: int, *, testnet: bool = False) -> str:
    """Sign ``data`` for ``tx_type``; returns ``"0x"`` + 130 hex digits, v = 27/28.

    Pass a ``Signer`` on hot paths: building one from raw key bytes derives the public key (~50 us).
    """
    signer = private_key if isinstance(private_key, Signer) else Signer(private_key)
    return signer.sign_action(data, tx_type, testnet=testnet)


def _parse_signature(signature: str) -> bytes:
    raw = _hex_bytes(signature, "signature")
    if len(raw) != 65:
        raise SigningError("signature must be 65 bytes (r, s, v)")
    v = raw[64]
    if v in (27, 28):
        v -= 27
    if v not in (0, 1):
        raise SigningError(f"signature v must be 27, 28, 0 or 1, not {raw[64]}")
    return raw[:64] + bytes([v])


def recover_digest(digest: bytes, signature: str) -> str:
    """The EIP-55 address that signed ``digest``."""
    sig = _parse_signature(signature)
    try:
        pub = coincurve.PublicKey.from_signature_and_message(sig, digest, hasher=None)
    except Exception:
        raise SigningError("signature does not recover a public key") from None
    return _address_of_pubkey(pub)


def recover_signer(data: Any, tx_type: int, signature: str, *, testnet: bool = False) -> str:
    """The EIP-55 address whose key produced ``signature`` over ``data`` and ``tx_type``.

    Accepts signatures with or without ``0x`` and v in {27, 28, 0, 1}; raises ``SigningError`` otherwise.
    """
    return recover_digest(action_digest(data, tx_type, testnet=testnet), signature)


def address_of(private_key: str | bytes) -> str:
    """The EIP-55 address of a private key."""
    return Signer(private_key).address
