"""TLS of the gRPC port: the server's certificate and key, and client certificates to require."""

from __future__ import annotations

from dataclasses import dataclass

import grpc


@dataclass(frozen=True)
class Tls:
    """PEM certificate chain and key of the server; with `client_ca`, client certificates
    signed by it are required."""

    cert: bytes
    key: bytes
    client_ca: bytes | None = None

    def credentials(self) -> grpc.ServerCredentials:
        """The gRPC server credentials."""
        return grpc.ssl_server_credentials(
            [(self.key, self.cert)],
            root_certificates=self.client_ca,
            require_client_auth=self.client_ca is not None,
        )
