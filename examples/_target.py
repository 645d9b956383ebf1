"""Where the examples send their requests: a hosted app, or the embedded reference server.

With ``APPBUILDER_TOKEN``, ``GATEWAY_URL_V2`` and ``APPBUILDER_APP_ID`` all set, the examples
talk to that hosted AppBuilder app. Otherwise each example starts appclient's reference agent
server on 127.0.0.1 for its own run and points those same environment variables at it, so the
example code reads exactly as it would against the hosted service.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from appclient._core._constants import ENV_APP_ID, ENV_BASE_URL, ENV_TOKEN
from appclient.server import Agent
from appclient.testing import ReferenceServer


@dataclass(frozen=True)
class Target:
    """The app an example talks to.

    Attributes:
        app_id: The app id to pass to ``AppClient``.
        token: The token (also in ``APPBUILDER_TOKEN``).
        base_url: The gateway (also in ``GATEWAY_URL_V2``).
        hosted: True for a real hosted app, False for the embedded server.
    """

    app_id: str
    token: str
    base_url: str
    hosted: bool

    def __repr__(self) -> str:  # never print the token
        return f"Target(app_id={self.app_id!r}, base_url={self.base_url!r}, hosted={self.hosted})"


def hosted_settings() -> Target | None:
    """Return the hosted app from the environment, or ``None`` when not fully configured."""
    token, base_url, app_id = (os.environ.get(n) for n in (ENV_TOKEN, ENV_BASE_URL, ENV_APP_ID))
    if token and base_url and app_id:
        return Target(app_id=app_id, token=token, base_url=base_url, hosted=True)
    return None


def example_parser(doc: str | None) -> argparse.ArgumentParser:
    """Return the command-line parser of an example, so ``--help`` explains it and runs nothing.

    Args:
        doc: The example's module docstring, shown as the description.

    Returns:
        A parser the example may add its own options to before ``parse_args``.
    """
    return argparse.ArgumentParser(
        description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            f"Set {ENV_TOKEN}, {ENV_BASE_URL} and {ENV_APP_ID} to talk to a hosted app; "
            "otherwise an embedded reference server on 127.0.0.1 answers."
        ),
    )


@contextmanager
def app_target(agent: Agent | None = None) -> Iterator[Target]:
    """Yield the app to talk to, starting the embedded server when no hosted app is set.

    Args:
        agent: The embedded server's agent (its default rule-based agent when ``None``);
            ignored for a hosted app, where the app's own agent decides.

    Yields:
        The target; the environment variables point at it while the block runs.
    """
    hosted = hosted_settings()
    if hosted is not None:
        print(f"[using the hosted app {hosted.app_id} at {hosted.base_url}]", file=sys.stderr)
        yield hosted
        return
    saved = {name: os.environ.get(name) for name in (ENV_TOKEN, ENV_BASE_URL)}
    with ReferenceServer(agent) as server:
        os.environ[ENV_TOKEN] = server.token
        os.environ[ENV_BASE_URL] = server.url
        print(f"[using the embedded reference server at {server.url}]", file=sys.stderr)
        try:
            yield Target(
                app_id=server.app_id, token=server.token, base_url=server.url, hosted=False
            )
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
