"""An https MCP server behind a bearer token, for tests/lock_transports.rs.

Built on the MCP Python SDK's `MCPServer` (pinned in tests/mcp/requirements.txt), served over
Streamable HTTP by uvicorn with TLS. Usage: `secure_server.py DIR [PORT]`:

- makes a certificate authority and a server certificate for `localhost` and `127.0.0.1`
  signed by it (with `cryptography`), writing `DIR/ca.pem` (what the test gives `toolgate lock
  --ca-cert`), `DIR/server.pem` and `DIR/server.key`, unless they are there already;
- listens on 127.0.0.1 on PORT (a free one without it) and prints `port N` on stdout once it
  does;
- answers HTTP 401 to any request whose `Authorization` is not `Bearer $SECURE_TOKEN`;
- serves the tools `lookup` and `archive`, or with `SECURE_TOOLSET=smaller` `lookup` alone.
"""

import datetime
import ipaddress
import os
import socket
import sys

import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from mcp.server.mcpserver import MCPServer


def certificates(folder: str) -> None:
    if os.path.exists(os.path.join(folder, "ca.pem")):
        return
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "toolgate test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    with open(os.path.join(folder, "server.key"), "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    with open(os.path.join(folder, "server.pem"), "wb") as f:
        f.write(leaf.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(folder, "ca.pem"), "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))


server = MCPServer("secure-records", version="1.0.0")


@server.tool(name="lookup", description="Finds records matching a query.")
def lookup(query: str, limit: int = 10) -> str:
    return f"{limit} records for {query}"


if os.environ.get("SECURE_TOOLSET") != "smaller":

    @server.tool(name="archive", description="Archives one record.")
    def archive(record_id: str) -> str:
        return f"archived {record_id}"


class BearerOnly:
    """Refuses every request without the expected bearer token."""

    def __init__(self, app, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != self.expected:
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"www-authenticate", b"Bearer"), (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        await self.app(scope, receive, send)


def main() -> None:
    folder = sys.argv[1]
    certificates(folder)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(sys.argv[2]) if len(sys.argv) > 2 else 0))
    sock.listen(128)
    app = BearerOnly(server.streamable_http_app(host="127.0.0.1"), os.environ["SECURE_TOKEN"])
    config = uvicorn.Config(
        app,
        ssl_certfile=os.path.join(folder, "server.pem"),
        ssl_keyfile=os.path.join(folder, "server.key"),
        log_level="warning",
    )
    print(f"port {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
