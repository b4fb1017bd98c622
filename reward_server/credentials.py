"""TLS material and bearer tokens, for both ends: files read once, checked for what belongs together.

The client reads its settings from the environment unless given explicitly, so code that only passes an
address (the TRL rewards) connects the same way the CLI does. The names below are the only place they live.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path

import grpc

TOKEN_ENV = "REWARD_SERVER_TOKEN"
TLS_CA_ENV = "REWARD_SERVER_TLS_CA"
TLS_CERT_ENV = "REWARD_SERVER_TLS_CERT"
TLS_KEY_ENV = "REWARD_SERVER_TLS_KEY"
AUTHORIZATION = "authorization"  # the metadata key; its value is "Bearer TOKEN"


class CredentialsError(ValueError):
    """TLS or token settings are incomplete, or a file they name cannot be read."""


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CredentialsError(f"cannot read the {what} {path}: {exc.strerror}") from None


def read_tokens(path: Path) -> tuple[str, ...]:
    """The tokens in a file, one per line (several, so that a new one can be rolled out before the old goes)."""
    tokens = tuple(line.strip() for line in _read(path, "token file").decode().splitlines() if line.strip())
    if not tokens:
        raise CredentialsError(f"no token in {path}")
    return tokens


@dataclasses.dataclass(frozen=True)
class ClientSecurity:
    """How a client proves who it is and checks the server: TLS when a CA is given, mTLS with a cert and key."""

    tls_ca: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    token: str | None = dataclasses.field(default=None, repr=False)  # a secret: kept out of logs and tracebacks

    def __post_init__(self) -> None:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise CredentialsError("a client certificate needs its key and the key its certificate")
        if self.tls_cert is not None and self.tls_ca is None:
            raise CredentialsError("a client certificate (mTLS) needs the CA that signed the server's (--tls-ca)")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ, *, tls_ca: Path | None = None,
                 tls_cert: Path | None = None, tls_key: Path | None = None, token: str | None = None) -> ClientSecurity:
        """The settings given, each else its environment variable."""

        def path(given: Path | None, name: str) -> Path | None:
            return given or (Path(environ[name]) if environ.get(name) else None)

        return cls(path(tls_ca, TLS_CA_ENV), path(tls_cert, TLS_CERT_ENV), path(tls_key, TLS_KEY_ENV),
                   token or environ.get(TOKEN_ENV) or None)

    @property
    def tls(self) -> bool:
        return self.tls_ca is not None

    def channel_credentials(self) -> grpc.ChannelCredentials | None:
        """None for a plaintext channel."""
        if self.tls_ca is None:
            return None
        client_pair = ((_read(self.tls_key, "client key"), _read(self.tls_cert, "client certificate"))
                       if self.tls_cert is not None and self.tls_key is not None else (None, None))
        return grpc.ssl_channel_credentials(_read(self.tls_ca, "CA certificate"), *client_pair)

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return ((AUTHORIZATION, f"Bearer {self.token}"),) if self.token else ()


@dataclasses.dataclass(frozen=True)
class ServerSecurity:
    """TLS on the server (cert and key), client certificates required when a client CA is given."""

    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_client_ca: Path | None = None

    def __post_init__(self) -> None:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise CredentialsError("--tls-cert and --tls-key go together")
        if self.tls_client_ca is not None and self.tls_cert is None:
            raise CredentialsError("--tls-client-ca (mTLS) needs the server's own --tls-cert and --tls-key")

    @property
    def mtls(self) -> bool:
        return self.tls_client_ca is not None

    def server_credentials(self) -> grpc.ServerCredentials | None:
        """None for plaintext."""
        if self.tls_cert is None or self.tls_key is None:
            return None
        pair = (_read(self.tls_key, "TLS key"), _read(self.tls_cert, "TLS certificate"))
        client_ca = _read(self.tls_client_ca, "client CA certificate") if self.tls_client_ca else None
        return grpc.ssl_server_credentials([pair], root_certificates=client_ca,
                                           require_client_auth=client_ca is not None)
