"""The endpoint client's failure paths, against real sockets on 127.0.0.1: a closed port
is retried with backoff, then an error names the endpoint and the last status; the API
key is read from its environment variable only and never appears in a message."""

from __future__ import annotations

import socket

import pytest

from audit.serving.client import CompletionClient, EndpointError, EndpointSettings, public_url


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends


def test_a_closed_port_is_retried_with_backoff_then_named() -> None:
    waits: list[float] = []
    port = _closed_port()
    settings = EndpointSettings(f"http://127.0.0.1:{port}/v1", "m", max_retries=3, backoff_s=0.5)
    client = CompletionClient(settings, sleep=waits.append)
    with pytest.raises(EndpointError) as error:
        client.post("completions", {"prompt": "x"})
    assert waits == [0.5, 1.0, 2.0]
    assert client.requests == 4 and client.retries == 3
    message = str(error.value)
    assert f"http://127.0.0.1:{port}/v1/completions" in message
    assert "gave up after 4 request(s)" in message and "cannot connect" in message


def test_the_api_key_comes_from_its_variable_and_is_never_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = EndpointSettings(
        f"http://user:secret@127.0.0.1:{_closed_port()}/v1?token=abc",
        "m",
        api_key_env="AUDIT_TEST_KEY",
        max_retries=0,
    )
    monkeypatch.delenv("AUDIT_TEST_KEY", raising=False)
    with pytest.raises(EndpointError, match=r"AUDIT_TEST_KEY .* is not set"):
        CompletionClient(settings).post("completions", {})
    monkeypatch.setenv("AUDIT_TEST_KEY", "sk-very-secret")
    with pytest.raises(EndpointError) as error:
        CompletionClient(settings).post("completions", {})
    message = str(error.value)
    assert "sk-very-secret" not in message and "secret" not in message
    assert "token=abc" not in message and "user" not in message


def test_public_url_drops_credentials_query_and_fragment() -> None:
    assert public_url("https://u:p@host.example:8443/v1/?key=1#x") == "https://host.example:8443/v1"
    assert public_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"


def test_a_server_that_drops_the_connection_is_retried_then_named() -> None:
    """A server that accepts and then resets the connection (as one killed mid-request
    does) is retried like a refused one, and ends in an EndpointError, not a traceback."""
    import struct
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = int(listener.getsockname()[1])
    accepted = 0

    def serve() -> None:
        nonlocal accepted
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            accepted += 1
            connection.recv(65536)
            # SO_LINGER 0: close() sends a reset, as a killed process's socket does
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        settings = EndpointSettings(f"http://127.0.0.1:{port}/v1", "m", max_retries=2)
        client = CompletionClient(settings, sleep=lambda _: None)
        with pytest.raises(EndpointError) as error:
            client.post("completions", {"prompt": "x"})
    finally:
        listener.close()
    assert accepted == 3 and client.requests == 3
    message = str(error.value)
    assert "gave up after 3 request(s)" in message
    assert "connection was lost" in message or "cannot connect" in message
